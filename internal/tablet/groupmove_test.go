package tablet

import (
	"testing"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// A family moved to another locality group keeps its data: reads see it
// before and after major compactions of both groups.
func TestFamilyChangesGroup(t *testing.T) {
	h, err := Open(Options{FS: vfs.NewMem(), Dir: "db", Seed: 1, TestingKnobs: TestingKnobs{DisableBackground: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.CreateTable("t", &Schema{Families: map[string]Family{"a": {}, "b": {}}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a", "b"} {
		if err := h.Apply("t", []byte("r"), []base.Mutation{{Kind: base.KindPut, Family: f, Qualifier: []byte("q"), Timestamp: 1000, Value: []byte(f)}}); err != nil {
			t.Fatal(err)
		}
	}
	tb, _ := h.TabletFor("t", []byte("r"))
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := h.SetSchema("t", &Schema{Families: map[string]Family{"a": {Group: "g2"}, "b": {}}}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		r, err := h.ReadRow("t", []byte("r"))
		if err != nil || len(r.Cells) != 2 {
			t.Fatalf("%s: %+v, %v; want cells of a and b", when, r.Cells, err)
		}
	}
	check("after the move")
	if err := tb.Compact(); err != nil {
		t.Fatal(err)
	}
	check("after a major compaction")
	if err := h.Apply("t", []byte("r"), []base.Mutation{{Kind: base.KindPut, Family: "a", Qualifier: []byte("z"), Timestamp: 1000, Value: []byte("new")}}); err != nil {
		t.Fatal(err)
	}
	if err := tb.Compact(); err != nil {
		t.Fatal(err)
	}
	if r, err := h.ReadRow("t", []byte("r")); err != nil || len(r.Cells) != 3 {
		t.Fatalf("after a write to the new group: %+v, %v", r.Cells, err)
	}
}
