package vfs

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"testing"
)

var pagesSeed = flag.Uint64("pages-seed", 0, "seed of TestPagesModel; 0 picks one")

// TestPagesModel runs random writes, truncations and snapshots on pages and
// on plain byte slices, and checks that both read the same and that a
// snapshot never changes once taken.
func TestPagesModel(t *testing.T) {
	seed := *pagesSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (replay with -pages-seed)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var d, snap pages
	var model, snapModel []byte
	for op := range 1500 {
		switch k := rng.IntN(10); {
		case k < 6:
			off := rng.IntN(len(model) + 2*pageSize)
			if rng.IntN(3) == 0 {
				off = len(model)
			}
			b := make([]byte, rng.IntN(3*pageSize/2))
			for i := range b {
				b[i] = byte(rng.IntN(255) + 1)
			}
			d.writeAt(b, int64(off), &snap)
			if off+len(b) > len(model) {
				model = append(model, make([]byte, off+len(b)-len(model))...)
			}
			copy(model[off:], b)
		case k < 8:
			size := rng.IntN(len(model) + pageSize)
			d.truncate(int64(size), &snap)
			if size < len(model) {
				model = model[:size]
			} else {
				model = append(model, make([]byte, size-len(model))...)
			}
		default:
			snap, snapModel = d.snapshot(), bytes.Clone(model)
		}
		if got := d.bytes(); !bytes.Equal(got, model) {
			t.Fatalf("op %d: contents differ from the model (len %d, want %d)", op, len(got), len(model))
		}
		if got := snap.bytes(); !bytes.Equal(got, snapModel) {
			t.Fatalf("op %d: snapshot changed", op)
		}
		off := rng.IntN(len(model) + 1)
		p := make([]byte, rng.IntN(2*pageSize))
		n := d.readAt(p, int64(off))
		if n != min(len(p), len(model)-off) || !bytes.Equal(p[:n], model[off:off+n]) {
			t.Fatalf("op %d: readAt(%d) wrong", op, off)
		}
	}
}
