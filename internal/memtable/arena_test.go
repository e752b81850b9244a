package memtable

import (
	"fmt"
	"testing"
)

// TestArenaGrowsOnDemand checks that a memtable with a large ArenaSize
// allocates memory as entries arrive, not up front.
func TestArenaGrowsOnDemand(t *testing.T) {
	m := New(Options{ArenaSize: MaxArenaSize})
	if got := m.allocated(); got != minChunkSize {
		t.Fatalf("new memtable allocated %d bytes, want %d", got, minChunkSize)
	}
	value := make([]byte, 100)
	for i := range 50000 {
		if err := m.Add(fmt.Appendf(nil, "key%08d", i), value); err != nil {
			t.Fatal(err)
		}
		// Chunks double, so about half of what is allocated is in use.
		if got := m.allocated(); got > 2*m.Size()+2*minChunkSize {
			t.Fatalf("after %d adds: allocated %d for Size %d", i+1, got, m.Size())
		}
	}
}

func (m *Memtable) allocated() int64 {
	var n int64
	for _, c := range *m.arena.chunks.Load() {
		n += int64(len(c))
	}
	return n
}

// TestSeedDeterministic checks that equal seeds and adds build equal
// skiplists, and that the seed matters.
func TestSeedDeterministic(t *testing.T) {
	build := func(seed uint64) int64 {
		m := New(Options{Seed: seed})
		rng := newRand(99)
		for range 2000 {
			_ = m.Add(fmt.Appendf(nil, "%d", rng.next()), nil)
		}
		return m.Size()
	}
	if a, b := build(1), build(1); a != b {
		t.Fatalf("same seed, sizes %d and %d", a, b)
	}
	if a, b := build(1), build(2); a == b {
		t.Fatalf("different seeds, same size %d", a)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		size int64
		ok   bool
	}{{0, true}, {1 << 20, true}, {MaxArenaSize, true}, {-1, false}, {MaxArenaSize + 1, false}} {
		if err := (Options{ArenaSize: tc.size}).Validate(); (err == nil) != tc.ok {
			t.Errorf("Validate(ArenaSize %d) = %v", tc.size, err)
		}
	}
}

// TestPrefaultKeepsContents checks that prefaulting leaves every byte as it
// was, whatever the slice's alignment and length, including bytes outside
// its whole pages.
func TestPrefaultKeepsContents(t *testing.T) {
	backing := make([]byte, 5*4096+123)
	for i := range backing {
		backing[i] = byte(i*7 + 1)
	}
	for _, c := range []struct{ lo, hi int }{{0, len(backing)}, {1, len(backing) - 1}, {100, 100 + 3*4096}, {5, 4000}, {0, 0}} {
		prefault(backing[c.lo:c.hi])
	}
	for i, b := range backing {
		if b != byte(i*7+1) {
			t.Fatalf("byte %d is %d after prefault, want %d", i, b, byte(i*7+1))
		}
	}
}
