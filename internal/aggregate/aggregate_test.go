package aggregate

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
)

func be(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func TestIntFolds(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    Type
		add  []int64
		want int64
	}{
		{"sum", Sum, []int64{1, 2, 3}, 6},
		{"sum negative", Sum, []int64{5, -7}, -2},
		{"sum wraps up", Sum, []int64{math.MaxInt64, 1}, math.MinInt64},
		{"sum wraps down", Sum, []int64{math.MinInt64, -1}, math.MaxInt64},
		{"sum one", Sum, []int64{-4}, -4},
		{"min", Min, []int64{3, -1, 7}, -1},
		{"min extremes", Min, []int64{math.MaxInt64, math.MinInt64}, math.MinInt64},
		{"min one", Min, []int64{9}, 9},
		{"max", Max, []int64{3, -1, 7}, 7},
		{"max negatives", Max, []int64{-3, -1, -7}, -1},
		{"max extremes", Max, []int64{math.MinInt64, math.MaxInt64}, math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Add and Merge fold an int the same way.
			for _, useMerge := range []bool{false, true} {
				f := NewFolder(tc.t)
				for _, v := range tc.add {
					fold := f.Add
					if useMerge {
						fold = f.Merge
					}
					if err := fold(be(v)); err != nil {
						t.Fatal(err)
					}
				}
				if f.Empty() {
					t.Fatal("Empty after folds")
				}
				if got := int64(binary.BigEndian.Uint64(f.Result())); got != tc.want {
					t.Fatalf("merge=%v: got %d, want %d", useMerge, got, tc.want)
				}
			}
		})
	}
}

func TestEmptyAndReset(t *testing.T) {
	for _, typ := range []Type{Sum, Min, Max, HLL} {
		t.Run(typ.String(), func(t *testing.T) {
			f := NewFolder(typ)
			if !f.Empty() {
				t.Fatal("new Folder not Empty")
			}
			empty := f.Result()
			if err := ValidateMerge(typ, empty); err != nil {
				t.Fatalf("Result of empty Folder does not validate: %v", err)
			}
			if typ != HLL && int64(binary.BigEndian.Uint64(empty)) != 0 {
				t.Fatalf("Result of empty = %x, want 0", empty)
			}
			if err := f.Add(be(42)); err != nil {
				t.Fatal(err)
			}
			if f.Empty() {
				t.Fatal("Empty after Add")
			}
			f.Reset()
			if !f.Empty() {
				t.Fatal("not Empty after Reset")
			}
			if got := f.Result(); string(got) != string(empty) {
				t.Fatalf("Result after Reset = %x, want %x", got, empty)
			}
			// After Reset the first value starts over (Min would keep 42).
			if err := f.Add(be(50)); err != nil {
				t.Fatal(err)
			}
			if typ != HLL && int64(binary.BigEndian.Uint64(f.Result())) != 50 {
				t.Fatalf("after Reset and Add(50): %x", f.Result())
			}
		})
	}
}

func TestResultIsFresh(t *testing.T) {
	f := NewFolder(Sum)
	if err := f.Add(be(1)); err != nil {
		t.Fatal(err)
	}
	r := f.Result()
	r[7] = 99
	if got := int64(binary.BigEndian.Uint64(f.Result())); got != 1 {
		t.Fatalf("Result shares memory: %d", got)
	}
}

func TestValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(Type, []byte) error
		t    Type
		b    []byte
		ok   bool
	}{
		{"add sum 8", ValidateAdd, Sum, be(1), true},
		{"add sum short", ValidateAdd, Sum, []byte{1, 2, 3}, false},
		{"add min long", ValidateAdd, Min, make([]byte, 9), false},
		{"add max empty", ValidateAdd, Max, nil, false},
		{"add hll any", ValidateAdd, HLL, []byte("anything"), true},
		{"add hll empty", ValidateAdd, HLL, nil, true},
		{"add none", ValidateAdd, None, be(1), false},
		{"add unknown", ValidateAdd, Type(9), be(1), false},
		{"merge sum 8", ValidateMerge, Sum, be(1), true},
		{"merge max short", ValidateMerge, Max, []byte{1}, false},
		{"merge hll empty sketch", ValidateMerge, HLL, []byte{hllVersion, hllPrecision, kindSparse}, true},
		{"merge hll garbage", ValidateMerge, HLL, []byte("garbage"), false},
		{"merge hll nil", ValidateMerge, HLL, nil, false},
		{"merge none", ValidateMerge, None, be(1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fn(tc.t, tc.b)
			if tc.ok {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if !errors.Is(err, base.ErrInvalidArgument) {
				t.Fatalf("error %v does not wrap ErrInvalidArgument", err)
			}
		})
	}
}

func TestFolderErrorLeavesStateUnchanged(t *testing.T) {
	f := NewFolder(Sum)
	if err := f.Add([]byte{1}); !errors.Is(err, base.ErrInvalidArgument) {
		t.Fatalf("Add short: %v", err)
	}
	if err := f.Merge(nil); !errors.Is(err, base.ErrInvalidArgument) {
		t.Fatalf("Merge nil: %v", err)
	}
	if !f.Empty() {
		t.Fatal("failed folds made the Folder non-empty")
	}
	n := NewFolder(None)
	if err := n.Add(be(1)); !errors.Is(err, base.ErrInvalidArgument) {
		t.Fatalf("None Add: %v", err)
	}
	if err := n.Merge(be(1)); !errors.Is(err, base.ErrInvalidArgument) {
		t.Fatalf("None Merge: %v", err)
	}
}

func TestTypeRoundTrip(t *testing.T) {
	for _, typ := range []Type{Sum, Min, Max, HLL} {
		got, err := ParseType(typ.String())
		if err != nil || got != typ {
			t.Fatalf("ParseType(%q) = %v, %v; want %v", typ.String(), got, err, typ)
		}
	}
	for s, want := range map[string]Type{
		"SUM": Sum, " Min ": Min, "mAx": Max, "HLLPP": HLL, "HyperLogLog": HLL,
	} {
		if got, err := ParseType(s); err != nil || got != want {
			t.Fatalf("ParseType(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"none", "", "avg", "Type(9)"} {
		if _, err := ParseType(s); !errors.Is(err, base.ErrInvalidArgument) {
			t.Fatalf("ParseType(%q): %v, want ErrInvalidArgument", s, err)
		}
	}
	if got := Type(9).String(); got != "Type(9)" {
		t.Fatalf("Type(9).String() = %q", got)
	}
	if None.String() != "none" {
		t.Fatalf("None.String() = %q", None.String())
	}
}
