package memtable

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// model is the sorted-slice reference a memtable is checked against.
type model struct {
	keys [][]byte
	pos  int // -1 before the first, len(keys) after the last
}

func (md *model) add(k []byte) bool {
	i, found := slices.BinarySearchFunc(md.keys, k, bytes.Compare)
	if found {
		return false
	}
	md.keys = slices.Insert(md.keys, i, k)
	return true
}

func (md *model) valid() bool { return md.pos >= 0 && md.pos < len(md.keys) }

// TestDifferential applies random adds and iterator moves, including
// direction changes and moves past either end, to a memtable and a model.
func TestDifferential(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { runDifferential(t, seed) })
	}
}

func runDifferential(t *testing.T, seed uint64) {
	rng := newRand(seed)
	m := New(Options{ArenaSize: 1 << 20, Seed: seed})
	md := &model{pos: -1}
	it := m.NewIter()
	randKey := func() []byte { return fmt.Appendf(nil, "%0*d", 1+rng.intn(3), rng.intn(500)) }
	for step := range 3000 {
		var op string
		var ok bool
		switch r := rng.intn(100); {
		case r < 30:
			k := randKey()
			err := m.Add(k, append([]byte("v"), k...))
			atEnd := md.pos == len(md.keys)
			if fresh := md.add(k); fresh != (err == nil) {
				t.Fatalf("seed %d step %d: Add(%q) = %v, model fresh=%v", seed, step, k, err, fresh)
			}
			// An add leaves the iterator where it was; re-seek the model.
			switch {
			case atEnd:
				md.pos = len(md.keys)
			case it.Key() != nil:
				md.pos, _ = slices.BinarySearchFunc(md.keys, it.Key(), bytes.Compare)
			}
			continue
		case r < 40:
			k := randKey()
			op, ok = fmt.Sprintf("SeekGE(%q)", k), it.SeekGE(k)
			md.pos, _ = slices.BinarySearchFunc(md.keys, k, bytes.Compare)
		case r < 50:
			k := randKey()
			op, ok = fmt.Sprintf("SeekLT(%q)", k), it.SeekLT(k)
			i, _ := slices.BinarySearchFunc(md.keys, k, bytes.Compare)
			md.pos = i - 1
		case r < 53:
			op, ok, md.pos = "First", it.First(), 0
		case r < 56:
			op, ok, md.pos = "Last", it.Last(), len(md.keys)-1
		case r < 78:
			op, ok = "Next", it.Next()
			md.pos = min(md.pos+1, len(md.keys))
		default:
			op, ok = "Prev", it.Prev()
			md.pos = max(md.pos-1, -1)
		}
		if ok != md.valid() {
			t.Fatalf("seed %d step %d: %s = %v, model %v (pos %d of %d)", seed, step, op, ok, md.valid(), md.pos, len(md.keys))
		}
		if !ok {
			if it.Key() != nil {
				t.Fatalf("seed %d step %d: %s: Key %q when not valid", seed, step, op, it.Key())
			}
			continue
		}
		want := md.keys[md.pos]
		if !bytes.Equal(it.Key(), want) || !bytes.Equal(it.Value(), append([]byte("v"), want...)) {
			t.Fatalf("seed %d step %d: %s at %q=%q, want %q", seed, step, op, it.Key(), it.Value(), want)
		}
	}
	if m.Len() != len(md.keys) {
		t.Fatalf("seed %d: Len %d, model %d", seed, m.Len(), len(md.keys))
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
}
