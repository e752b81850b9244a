package aggregate

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tabuladb/tabula/internal/base"
)

func elem(i int) []byte { return fmt.Appendf(nil, "element-%d", i) }

// sketchOf returns the serialized sketch of elements lo..hi-1.
func sketchOf(t testing.TB, lo, hi int) []byte {
	t.Helper()
	f := NewFolder(HLL)
	for i := lo; i < hi; i++ {
		if err := f.Add(elem(i)); err != nil {
			t.Fatal(err)
		}
	}
	return f.Result()
}

func estimate(t testing.TB, state []byte) uint64 {
	t.Helper()
	n, err := Estimate(state)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestHLLEstimateSmall(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 10, 50, 100} {
		got := estimate(t, sketchOf(t, 0, n))
		if d := int64(got) - int64(n); d < -1 || d > 1 {
			t.Errorf("n=%d: estimate %d", n, got)
		}
	}
}

func TestHLLEstimateLarge(t *testing.T) {
	const n = 100_000
	got := estimate(t, sketchOf(t, 0, n))
	rel := (float64(got) - n) / n
	t.Logf("n=%d estimate=%d error=%+.3f%%", n, got, 100*rel)
	if math.Abs(rel) > 0.02 {
		t.Fatalf("n=%d: estimate %d is off by %.2f%%, want within 2%%", n, got, 100*rel)
	}
}

// TestHLLEstimateRange logs the error across the range, including both
// sides of the switch from linear counting to the HyperLogLog estimator
// (2.5 × 2^14 = 40960), and bounds it at 3%, about 4 standard errors.
func TestHLLEstimateRange(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	f := NewFolder(HLL)
	next := 0
	for _, n := range []int{1_000, 5_000, 10_000, 20_000, 30_000, 40_000, 45_000, 60_000, 80_000, 150_000, 500_000, 1_000_000} {
		for ; next < n; next++ {
			if err := f.Add(elem(next)); err != nil {
				t.Fatal(err)
			}
		}
		got := estimate(t, f.Result())
		rel := (float64(got) - float64(n)) / float64(n)
		t.Logf("n=%-8d estimate=%-8d error=%+.3f%%", n, got, 100*rel)
		if math.Abs(rel) > 0.03 {
			t.Errorf("n=%d: estimate %d is off by %.2f%%", n, got, 100*rel)
		}
	}
}

func TestHLLDuplicates(t *testing.T) {
	for _, n := range []int{10, 20_000} { // sparse and dense
		once := sketchOf(t, 0, n)
		f := NewFolder(HLL)
		for rep := 0; rep < 3; rep++ {
			for i := n - 1; i >= 0; i-- {
				if err := f.Add(elem(i)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if !bytes.Equal(f.Result(), once) {
			t.Fatalf("n=%d: adding every element 3 times changed the sketch", n)
		}
		if a, b := estimate(t, once), estimate(t, f.Result()); a != b {
			t.Fatalf("n=%d: estimate %d with duplicates, %d without", n, b, a)
		}
	}
}

func TestHLLMergeIsUnion(t *testing.T) {
	for _, tc := range []struct{ lo1, hi1, lo2, hi2 int }{
		{0, 0, 0, 0},
		{0, 10, 5, 20},
		{0, 100, 1000, 1100},
		{0, 3000, 2000, 9000},       // sparse + sparse → dense
		{0, 50_000, 10, 20},         // dense + sparse
		{0, 30_000, 20_000, 60_000}, // dense + dense
	} {
		a, b := sketchOf(t, tc.lo1, tc.hi1), sketchOf(t, tc.lo2, tc.hi2)
		f := NewFolder(HLL)
		for i := tc.lo1; i < tc.hi1; i++ {
			f.Add(elem(i))
		}
		for i := tc.lo2; i < tc.hi2; i++ {
			f.Add(elem(i))
		}
		union := f.Result()
		m := NewFolder(HLL)
		if err := m.Merge(a); err != nil {
			t.Fatal(err)
		}
		if err := m.Merge(b); err != nil {
			t.Fatal(err)
		}
		if got := m.Result(); !bytes.Equal(got, union) {
			t.Fatalf("%+v: merge of sketches differs from the sketch of the union", tc)
		}
		if *m.regs != *f.regs {
			t.Fatalf("%+v: registers differ", tc)
		}
	}
}

// TestHLLFoldOrder checks that folding is commutative and associative: the
// same inputs and states, folded in a random order and grouping, give the
// same sketch.
func TestHLLFoldOrder(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	for iter := 0; iter < 20; iter++ {
		// Inputs: single elements (Add) and states of element ranges (Merge).
		type input struct {
			add   []byte
			state []byte
		}
		var ins []input
		for i, n := 0, rng.IntN(40); i < n; i++ {
			if rng.IntN(2) == 0 {
				ins = append(ins, input{add: elem(rng.IntN(100_000))})
				continue
			}
			lo := rng.IntN(100_000)
			ins = append(ins, input{state: sketchOf(t, lo, lo+rng.IntN(8000))})
		}
		fold := func(f *Folder, in input) {
			var err error
			if in.add != nil {
				err = f.Add(in.add)
			} else {
				err = f.Merge(in.state)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		ref := NewFolder(HLL)
		for _, in := range ins {
			fold(ref, in)
		}
		want := ref.Result()

		// Shuffle, cut into groups, fold each group, then fold the groups'
		// results in reverse.
		rng.Shuffle(len(ins), func(i, j int) { ins[i], ins[j] = ins[j], ins[i] })
		var states [][]byte
		g := NewFolder(HLL)
		for i, in := range ins {
			fold(g, in)
			if rng.IntN(4) == 0 || i == len(ins)-1 {
				states = append(states, g.Result())
				g.Reset()
			}
		}
		got := NewFolder(HLL)
		for i := len(states) - 1; i >= 0; i-- {
			if err := got.Merge(states[i]); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got.Result(), want) {
			t.Fatalf("seed %d iter %d: fold order changed the sketch", seed, iter)
		}
	}
}

func TestHLLEncodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	maxSparse := (hllRegisters - 1) / hllEntry // 5461
	for _, tc := range []struct {
		nonzero int
		kind    byte
	}{
		{0, kindSparse}, {1, kindSparse}, {100, kindSparse},
		{maxSparse, kindSparse}, {maxSparse + 1, kindDense},
		{10_000, kindDense}, {hllRegisters, kindDense},
	} {
		var r registers
		if tc.nonzero >= 2 { // the extremes of index and value
			r[0], r[hllRegisters-1] = hllMaxRank, 1
		}
		set := countNonzero(&r)
		for _, i := range rng.Perm(hllRegisters) {
			if set == tc.nonzero {
				break
			}
			if r[i] == 0 {
				r[i] = uint8(1 + rng.IntN(hllMaxRank))
				set++
			}
		}
		b := r.encode()
		if b[2] != tc.kind {
			t.Fatalf("%d nonzero: kind %d, want %d", tc.nonzero, b[2], tc.kind)
		}
		if tc.kind == kindSparse && len(b) != hllHeader+hllEntry*countNonzero(&r) {
			t.Fatalf("%d nonzero: sparse length %d", tc.nonzero, len(b))
		}
		if tc.kind == kindDense && len(b) != hllHeader+hllRegisters {
			t.Fatalf("%d nonzero: dense length %d", tc.nonzero, len(b))
		}
		var back registers
		last := -1
		if err := walkSketch(b, func(idx int, val uint8) {
			if idx <= last || val == 0 {
				t.Fatalf("walk called fn(%d, %d) after %d", idx, val, last)
			}
			last = idx
			back.merge(idx, val)
		}); err != nil {
			t.Fatal(err)
		}
		if back != r {
			t.Fatalf("%d nonzero: round trip changed the registers", tc.nonzero)
		}
	}
}

func countNonzero(r *registers) int {
	n := 0
	for _, v := range r {
		if v != 0 {
			n++
		}
	}
	return n
}

func TestHLLNonCanonicalInput(t *testing.T) {
	// A dense sketch with few registers set is accepted and re-encoded sparse.
	dense := append([]byte{hllVersion, hllPrecision, kindDense}, make([]byte, hllRegisters)...)
	dense[hllHeader+7] = 3
	f := NewFolder(HLL)
	if err := f.Merge(dense); err != nil {
		t.Fatal(err)
	}
	want := []byte{hllVersion, hllPrecision, kindSparse, 0, 7, 3}
	if got := f.Result(); !bytes.Equal(got, want) {
		t.Fatalf("Result = %x, want %x", got, want)
	}
}

func TestHLLAddRank(t *testing.T) {
	var r registers
	r.add(0)                            // index 0, rank bits all zero: capped rank
	r.add(1<<50 | 1)                    // index 1, lowest rank bit set: 50 zeros
	r.add(3<<50 | 1<<49)                // index 3, top rank bit set: rank 1
	r.add(math.MaxUint64)               // index 2^14-1, rank 1
	r.add(uint64(hllRegisters-1) << 50) // same index, rank bits zero: capped
	for idx, want := range map[int]uint8{0: 51, 1: 50, 3: 1, hllRegisters - 1: 51, 2: 0} {
		if r[idx] != want {
			t.Errorf("register %d = %d, want %d", idx, r[idx], want)
		}
	}
}

// TestHLLGolden pins the hash and the serialized form: sketches are
// stored, so neither may change.
func TestHLLGolden(t *testing.T) {
	if got := hash64([]byte("tabula")); got != 0x805c6ce76d6affe1 {
		t.Errorf("hash64(\"tabula\") = %#x", got)
	}
	f := NewFolder(HLL)
	for _, s := range []string{"a", "b", "c"} {
		f.Add([]byte(s))
	}
	if got, want := fmt.Sprintf("%x", f.Result()), "010e011b99011dc20220a801"; got != want {
		t.Errorf("sketch of a, b, c = %s, want %s", got, want)
	}
}

func TestWalkSketchRejects(t *testing.T) {
	hdr := func(kind byte, body ...byte) []byte {
		return append([]byte{hllVersion, hllPrecision, kind}, body...)
	}
	dense := func(i int, v byte) []byte {
		b := hdr(kindDense, make([]byte, hllRegisters)...)
		b[hllHeader+i] = v
		return b
	}
	for name, b := range map[string][]byte{
		"nil":                  nil,
		"short":                {hllVersion, hllPrecision},
		"version 0":            {0, hllPrecision, kindSparse},
		"version 2":            {2, hllPrecision, kindSparse},
		"precision 12":         {hllVersion, 12, kindSparse},
		"kind 0":               hdr(0),
		"kind 3":               hdr(3),
		"sparse partial entry": hdr(kindSparse, 0, 1),
		"sparse extra byte":    hdr(kindSparse, 0, 1, 1, 0),
		"sparse zero value":    hdr(kindSparse, 0, 1, 0),
		"sparse value 52":      hdr(kindSparse, 0, 1, 52),
		"sparse value 255":     hdr(kindSparse, 0, 1, 255),
		"sparse index 2^14":    hdr(kindSparse, 0x40, 0, 1),
		"sparse index max":     hdr(kindSparse, 0xff, 0xff, 1),
		"sparse duplicate":     hdr(kindSparse, 0, 5, 1, 0, 5, 2),
		"sparse decreasing":    hdr(kindSparse, 0, 6, 1, 0, 5, 2),
		"dense short":          hdr(kindDense, make([]byte, hllRegisters-1)...),
		"dense long":           hdr(kindDense, make([]byte, hllRegisters+1)...),
		"dense empty":          hdr(kindDense),
		"dense value 52":       dense(100, 52),
		"dense last value 52":  dense(hllRegisters-1, 52),
	} {
		called := false
		err := walkSketch(b, func(int, uint8) { called = true })
		if !errors.Is(err, base.ErrInvalidArgument) {
			t.Errorf("%s: error %v, want ErrInvalidArgument", name, err)
		}
		if called {
			t.Errorf("%s: fn called for a malformed sketch", name)
		}
		if _, err := Estimate(b); !errors.Is(err, base.ErrInvalidArgument) {
			t.Errorf("%s: Estimate error %v", name, err)
		}
		f := NewFolder(HLL)
		if err := f.Merge(b); err == nil || !f.Empty() {
			t.Errorf("%s: Merge accepted it", name)
		}
	}
	for name, b := range map[string][]byte{
		"sparse empty":    hdr(kindSparse),
		"sparse extremes": hdr(kindSparse, 0, 0, 1, 0x3f, 0xff, 51),
		"dense all zero":  dense(0, 0),
		"dense value 51":  dense(hllRegisters-1, 51),
	} {
		if err := walkSketch(b, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzMergeState feeds arbitrary bytes to the HLL merge path: it must never
// panic, Folder.Merge must agree with ValidateMerge, and whatever the Folder
// accepts must fold to a state that validates again.
func FuzzMergeState(f *testing.F) {
	f.Add([]byte{hllVersion, hllPrecision, kindSparse})
	f.Add([]byte{hllVersion, hllPrecision, kindSparse, 0, 1, 5, 0x3f, 0xff, 51})
	f.Add(sketchOf(f, 0, 100))
	f.Add(sketchOf(f, 0, 20_000))
	f.Fuzz(func(t *testing.T, b []byte) {
		verr := ValidateMerge(HLL, b)
		if verr != nil && !errors.Is(verr, base.ErrInvalidArgument) {
			t.Fatalf("error %v does not wrap ErrInvalidArgument", verr)
		}
		fo := NewFolder(HLL)
		fo.Add([]byte("x"))
		merr := fo.Merge(b)
		if (verr == nil) != (merr == nil) {
			t.Fatalf("ValidateMerge: %v, Merge: %v", verr, merr)
		}
		_, eerr := Estimate(b)
		if (verr == nil) != (eerr == nil) {
			t.Fatalf("ValidateMerge: %v, Estimate: %v", verr, eerr)
		}
		res := fo.Result()
		if err := ValidateMerge(HLL, res); err != nil {
			t.Fatalf("Result does not validate: %v", err)
		}
		if verr != nil {
			return
		}
		// Merging a state twice, or its re-encoding, changes nothing.
		again := NewFolder(HLL)
		if err := again.Merge(res); err != nil {
			t.Fatal(err)
		}
		if err := again.Merge(b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Result(), res) {
			t.Fatal("merge is not idempotent")
		}
	})
}
