package tablet

import (
	"testing"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/gcrule"
	"github.com/tabuladb/tabula/internal/vfs"
)

func putCell(t *testing.T, h *Host, row, family, value string) {
	t.Helper()
	if err := h.Apply("t", []byte(row), []base.Mutation{{Kind: base.KindPut, Family: family, Qualifier: []byte("q"), Timestamp: 1000, Value: []byte(value)}}); err != nil {
		t.Fatal(err)
	}
}

func rowCells(t *testing.T, h *Host, row string) []base.Cell {
	t.Helper()
	r, err := h.ReadRow("t", []byte(row))
	if err != nil {
		t.Fatal(err)
	}
	return r.Cells
}

// A family dropped from the schema and created again starts empty: its old
// cells stay hidden from every read, through a restart and a major
// compaction, while new writes show. A changed family keeps its cells.
func TestRecreatedFamilyIsEmpty(t *testing.T) {
	for _, cache := range []int64{0, 1 << 20} {
		opts := Options{FS: vfs.NewMem(), Dir: "db", Seed: 1, RowCacheSize: cache, TestingKnobs: TestingKnobs{DisableBackground: true}}
		h, err := Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		both := &Schema{Families: map[string]Family{"a": {}, "b": {}}}
		if err := h.CreateTable("t", both, [][]byte{[]byte("m")}); err != nil {
			t.Fatal(err)
		}
		for _, row := range []string{"k", "x"} {
			putCell(t, h, row, "a", "old")
			putCell(t, h, row, "b", "kept")
		}
		tb, _ := h.TabletFor("t", []byte("k"))
		if err := tb.Flush(); err != nil { // old cells in an SSTable and in a memtable
			t.Fatal(err)
		}
		if len(rowCells(t, h, "k")) != 2 {
			t.Fatal("cells missing before the drop")
		}
		if err := h.SetSchema("t", &Schema{Families: map[string]Family{"b": {}}}); err != nil {
			t.Fatal(err)
		}
		if err := h.SetSchema("t", both); err != nil {
			t.Fatal(err)
		}
		// A changed GC rule is not a new family.
		if err := h.SetSchema("t", &Schema{Families: map[string]Family{"a": {}, "b": {GC: gcrule.MaxVersions(5)}}}); err != nil {
			t.Fatal(err)
		}
		check := func(when string, want int) {
			t.Helper()
			for _, row := range []string{"k", "x"} {
				cells := rowCells(t, h, row)
				if len(cells) != want || cells[len(cells)-1].Family != "b" {
					t.Fatalf("%s: row %s holds %+v, want %d cells ending in family b", when, row, cells, want)
				}
			}
			n := 0
			if err := h.Scan("t", ScanOptions{}, func(r base.Row) bool { n += len(r.Cells); return true }); err != nil || n != 2*want {
				t.Fatalf("%s: scan saw %d cells, %v; want %d", when, n, err, 2*want)
			}
		}
		check("after re-creating family a", 1)
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		if h, err = Open(opts); err != nil {
			t.Fatal(err)
		}
		check("after a restart", 1)
		ts, _ := h.Tablets("t")
		for _, tb := range ts {
			if err := tb.Compact(); err != nil {
				t.Fatal(err)
			}
		}
		check("after a major compaction", 1)
		for _, row := range []string{"k", "x"} {
			putCell(t, h, row, "a", "new")
		}
		check("after new writes", 2)
		if c := rowCells(t, h, "k"); string(c[0].Value) != "new" {
			t.Fatalf("new cell %+v", c[0])
		}
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		if h, err = Open(opts); err != nil {
			t.Fatal(err)
		}
		check("after new writes and a restart", 2)
		h.Close()
	}
}

// A version 1 manifest, which has no family floors, is read; an unknown
// later version is refused.
func TestManifestVersions(t *testing.T) {
	m := &manifest{NextFile: 1, NextTablet: 1, Tables: map[string]*Schema{"t": {Families: map[string]Family{"a": {Floor: 7}}}}}
	b, err := encodeManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeManifest("M", b)
	if err != nil || got.Tables["t"].Families["a"].Floor != 7 {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for v, ok := range map[byte]bool{1: true, manifestVersion + 1: false, 0: false} {
		c := append([]byte(nil), b...)
		c[8] = v
		if _, err := decodeManifest("M", c); (err == nil) != ok {
			t.Errorf("version %d: %v", v, err)
		}
	}
}
