package gcrule

import (
	"errors"
	"testing"
	"time"

	"github.com/tabuladb/tabula/internal/base"
)

func TestMarshalRoundTrip(t *testing.T) {
	rules := []Rule{
		None(), MaxVersions(1), MaxVersions(1 << 40), MaxAge(time.Millisecond),
		MaxAge(365 * 24 * time.Hour), nested(), deep(MaxDepth),
		Intersection(Union(MaxVersions(3), MaxAge(time.Hour)), None(), MaxVersions(7)),
	}
	for _, r := range rules {
		b, err := r.MarshalBinary()
		if err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		if b[0] != formatV1 {
			t.Errorf("%v: first byte %d", r, b[0])
		}
		var got Rule
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		if !got.Equal(r) {
			t.Errorf("round trip of %v gives %v", r, got)
		}
	}
}

func TestMarshalInvalid(t *testing.T) {
	for _, r := range []Rule{MaxVersions(0), Union(), MaxAge(time.Microsecond)} {
		if _, err := r.MarshalBinary(); !errors.Is(err, base.ErrInvalidArgument) {
			t.Errorf("%v: got %v", r, err)
		}
	}
}

func TestUnmarshalCorrupt(t *testing.T) {
	valid, _ := nested().MarshalBinary()
	bad := [][]byte{
		nil, {}, {2, 0}, {formatV1}, {formatV1, 9}, {formatV1, 0, 0},
		{formatV1, byte(KindMaxVersions)}, {formatV1, byte(KindMaxVersions), 0},
		{formatV1, byte(KindMaxAge), 0}, {formatV1, byte(KindUnion), 0},
		{formatV1, byte(KindUnion), 5, 0}, {formatV1, byte(KindMaxVersions), 0xff, 0xff},
		{formatV1, byte(KindMaxAge), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		valid[:len(valid)-1], append(append([]byte{}, valid...), 0),
	}
	deepEnc := []byte{formatV1}
	for range MaxDepth + 1 {
		deepEnc = append(deepEnc, byte(KindUnion), 1)
	}
	bad = append(bad, append(deepEnc, byte(KindNone)))
	for _, b := range bad {
		r := MaxVersions(4)
		if err := r.UnmarshalBinary(b); !errors.Is(err, base.ErrCorruption) {
			t.Errorf("%x: got %v, want corruption", b, err)
		}
		if !r.Equal(MaxVersions(4)) {
			t.Errorf("%x: failed decode changed the rule to %v", b, r)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	b, _ := nested().MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Rule
		if err := r.UnmarshalBinary(b); err != nil {
			if !errors.Is(err, base.ErrCorruption) {
				t.Fatalf("%x: error %v is not corruption", b, err)
			}
			return
		}
		again, err := r.MarshalBinary()
		if err != nil {
			t.Fatalf("%x decodes to %v, which does not encode: %v", b, r, err)
		}
		var r2 Rule
		if err := r2.UnmarshalBinary(again); err != nil || !r2.Equal(r) {
			t.Fatalf("%x: re-decode gives %v, %v", b, r2, err)
		}
	})
}
