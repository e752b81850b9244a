package tablet

import (
	"testing"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// Rows read twice come from the row cache the second time; writes after
// the cached read, and flushes, show through.
func TestRowCache(t *testing.T) {
	h, err := Open(Options{FS: vfs.NewMem(), Dir: "db", RowCacheSize: 1 << 20, Seed: 1, TestingKnobs: TestingKnobs{DisableBackground: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.CreateTable("t", crashSchema(), nil); err != nil {
		t.Fatal(err)
	}
	put := func(v string, ts int64) {
		t.Helper()
		if err := h.Apply("t", []byte("r"), []base.Mutation{{Kind: base.KindPut, Family: "a", Qualifier: []byte("q"), Timestamp: ts, Value: []byte(v)}}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(want string) {
		t.Helper()
		r, err := h.ReadRow("t", []byte("r"))
		if err != nil || len(r.Cells) == 0 || string(r.Cells[0].Value) != want {
			t.Fatalf("read: %+v, %v; want latest %q", r.Cells, err, want)
		}
	}
	tb, _ := h.TabletFor("t", []byte("r"))
	put("v1", 1000)
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	read("v1")
	read("v1")
	if st := h.rowCache.Stats(); st.Hits != 1 || st.Misses != 1 {
		t.Fatalf("after two reads: %+v, want 1 hit and 1 miss", st)
	}
	put("v2", 2000)
	read("v2") // memtable on top of the cached files
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	read("v2") // a new version: a miss, then cached
	read("v2")
	if st := h.rowCache.Stats(); st.Hits != 3 || st.Misses != 2 {
		t.Fatalf("after flush: %+v, want 3 hits and 2 misses", st)
	}
	if err := h.Apply("t", []byte("r"), []base.Mutation{{Kind: base.KindDeleteRow}}); err != nil {
		t.Fatal(err)
	}
	if r, err := h.ReadRow("t", []byte("r")); err != nil || len(r.Cells) != 0 {
		t.Fatalf("deleted row read as %+v, %v", r.Cells, err)
	}
}
