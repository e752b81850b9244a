package tablet

import (
	"testing"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// openCached opens a host with a row cache and an empty table "t".
func openCached(t *testing.T) *Host {
	t.Helper()
	h := openWithRows(t, Options{FS: vfs.NewMem(), Dir: "db", RowCacheSize: 1 << 20, Seed: 1, TestingKnobs: TestingKnobs{DisableBackground: true}}, 0)
	t.Cleanup(func() { h.Close() })
	return h
}

// Rows read twice come from the row cache the second time; writes after
// the cached read, and flushes, show through.
func TestRowCache(t *testing.T) {
	h := openCached(t)
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

// A scan of exactly one row, which is how a read by row key arrives over
// the API, reads through the row cache as ReadRow does; a wider scan does
// not.
func TestSingleRowScanUsesRowCache(t *testing.T) {
	h := openCached(t)
	for _, row := range []string{"r", "s"} {
		if err := h.Apply("t", []byte(row), []base.Mutation{{Kind: base.KindPut, Family: "a", Qualifier: []byte("q"), Timestamp: 1000, Value: []byte("v" + row)}}); err != nil {
			t.Fatal(err)
		}
	}
	tb, _ := h.TabletFor("t", []byte("r"))
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	scan := func(start, end string) []string {
		t.Helper()
		var got []string
		if err := h.Scan("t", ScanOptions{Start: []byte(start), End: []byte(end)}, func(r base.Row) bool {
			for _, c := range r.Cells {
				got = append(got, string(r.Key)+"="+string(c.Value))
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for range 2 {
		if got := scan("r", "r\x00"); len(got) != 1 || got[0] != "r=vr" {
			t.Fatalf("single-row scan: %v", got)
		}
	}
	if st := h.rowCache.Stats(); st.Hits != 1 || st.Misses != 1 {
		t.Fatalf("after two single-row scans: %+v, want 1 hit and 1 miss", st)
	}
	if got := scan("r", "s\x00"); len(got) != 2 {
		t.Fatalf("two-row scan: %v", got)
	}
	if st := h.rowCache.Stats(); st.Hits != 1 || st.Misses != 1 {
		t.Fatalf("a wider scan touched the row cache: %+v", st)
	}
}

// A one-row scan of a tablet that does not hold the row leaves the row
// cache alone: the halves of a split share the cache entries of their
// version, and an empty row cached by the wrong half would hide the row.
func TestSingleRowScanOutsideTablet(t *testing.T) {
	h := openCached(t)
	for _, row := range []string{"a", "z"} {
		if err := h.Apply("t", []byte(row), []base.Mutation{{Kind: base.KindPut, Family: "a", Qualifier: []byte("q"), Timestamp: 1000, Value: []byte("v")}}); err != nil {
			t.Fatal(err)
		}
	}
	tb, _ := h.TabletFor("t", []byte("a"))
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := h.Split(tb.id, []byte("m")); err != nil {
		t.Fatal(err)
	}
	left, _ := h.TabletFor("t", []byte("a"))
	s := left.NewScanner(ScanOptions{Start: []byte("z"), End: []byte("z\x00")})
	if r, ok := s.Next(); ok {
		t.Fatalf("the left half returned row %q", r.Key)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if r, err := h.ReadRow("t", []byte("z")); err != nil || len(r.Cells) != 1 {
		t.Fatalf("row z after a scan of the wrong half: %+v, %v", r.Cells, err)
	}
}
