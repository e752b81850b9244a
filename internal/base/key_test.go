package base

import (
	"bytes"
	"cmp"
	"flag"
	"math/rand/v2"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "seed for randomized tests (0 = from the clock)")

func testSeed(t *testing.T) uint64 {
	s := *seedFlag
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -seed %d)", s, s)
	return s
}

func compareKeys(a, b *Key) int {
	if c := bytes.Compare(a.Row, b.Row); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Family, b.Family); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Qualifier, b.Qualifier); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Timestamp, a.Timestamp); c != 0 {
		return c
	}
	return cmp.Compare(b.Seq, a.Seq)
}

func randBytes(r *rand.Rand) []byte {
	alphabet := []byte{0x00, 0x01, 0xFF, 'a', 'b'}
	b := make([]byte, r.IntN(4))
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return b
}

func randKey(r *rand.Rand) Key {
	ts := []int64{0, 1, 1000, MaxTimestamp, TombstoneTimestamp, -1}
	return Key{
		Row:       randBytes(r),
		Family:    string(randBytes(r)),
		Qualifier: randBytes(r),
		Timestamp: ts[r.IntN(len(ts))],
		Seq:       r.Uint64N(4) * (MaxSeq / 3),
		Kind:      Kind(1 + r.IntN(6)),
	}
}

// The encoding must order keys exactly as the logical order does, and
// decode back to the same key.
func TestEncodingOrderAndRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 0))
	for range 20000 {
		a, b := randKey(r), randKey(r)
		ea, eb := Encode(&a), Encode(&b)
		if got, want := bytes.Compare(ea, eb), compareKeys(&a, &b); got != want && !(want == 0 && a.Kind != b.Kind) {
			t.Fatalf("order of %+v vs %+v: encoded %d, logical %d", a, b, got, want)
		}
		d, err := Decode(ea)
		if err != nil || compareKeys(&a, &d) != 0 || d.Kind != a.Kind {
			t.Fatalf("round trip %+v: got %+v, %v", a, d, err)
		}
		if !bytes.HasPrefix(ea, RowPrefix(a.Row)) || SplitRow(ea) != len(RowPrefix(a.Row)) {
			t.Fatalf("row prefix of %+v", a)
		}
		if n := SplitColumn(ea); n != len(ColumnPrefix(a.Row, a.Family, a.Qualifier)) {
			t.Fatalf("column prefix of %+v: %d", a, n)
		}
		rowCmp := bytes.Compare(a.Row, b.Row)
		if rowCmp < 0 && bytes.Compare(RowEnd(a.Row), eb) > 0 {
			t.Fatalf("RowEnd(%q) not below key of row %q", a.Row, b.Row)
		}
		if rowCmp == 0 && bytes.Compare(RowEnd(a.Row), eb) <= 0 {
			t.Fatalf("RowEnd(%q) not above its own key", a.Row)
		}
	}
}

func TestDecodeRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, {0}, {0, 2}, {'a', 0, 1, 0, 1, 0, 1}, make([]byte, 40)} {
		if _, err := Decode(b); err == nil {
			t.Errorf("Decode(%x) succeeded", b)
		}
	}
}

func TestSeekKeyIsFirstOfColumnAtTimestamp(t *testing.T) {
	k := Key{Row: []byte("r"), Family: "f", Qualifier: []byte("q"), Timestamp: 5, Seq: MaxSeq, Kind: KindPut}
	if bytes.Compare(SeekKey(k.Row, k.Family, k.Qualifier, 5), Encode(&k)) > 0 {
		t.Fatal("seek key above the newest entry at its timestamp")
	}
	k.Timestamp = 6
	if bytes.Compare(SeekKey(k.Row, k.Family, k.Qualifier, 5), Encode(&k)) <= 0 {
		t.Fatal("seek key not above a newer timestamp")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode(&Key{Row: []byte("row"), Family: "f", Qualifier: []byte{0}, Timestamp: 1, Seq: 2, Kind: KindPut}))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := Decode(b)
		if err == nil && !bytes.Equal(Encode(&k), b) {
			t.Fatalf("decoded %x to %+v which encodes differently", b, k)
		}
		SplitRow(b)
		SplitColumn(b)
	})
}
