package tablet

import (
	"testing"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/gcrule"
)

// A reader skips the versions of a column its GC rule drops, but never a
// column whose first entry it passed over as written after its snapshot.
func TestColumnDone(t *testing.T) {
	s := rowState{schema: &Schema{Families: map[string]Family{"f": {GC: gcrule.MaxVersions(1)}}}, snap: 10}
	s.reset()
	key := func(q string, ts int64, seq uint64) *base.Key {
		return &base.Key{Row: []byte("r"), Family: "f", Qualifier: []byte(q), Timestamp: ts, Seq: seq, Kind: base.KindPut}
	}
	steps := []struct {
		k    *base.Key
		done bool
	}{
		{key("a", 9, 1), true},   // the newest version of a: the rest can go
		{key("b", 9, 20), false}, // b written after the snapshot: b is not entered
		{key("b", 8, 3), true},
	}
	for i, st := range steps {
		s.add(st.k, []byte("v"))
		if got := s.columnDone(st.k); got != st.done {
			t.Fatalf("step %d: columnDone = %v, want %v", i, got, st.done)
		}
	}
	cells, err := s.finish()
	if err != nil || len(cells) != 2 {
		t.Fatalf("finish = %d cells, %v; want 2", len(cells), err)
	}
}
