package compress

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
)

func inputs(rng *rand.Rand) [][]byte {
	random := make([]byte, 70000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// Long repeats far apart: what the first pass of TwoPass is for.
	page := random[:3000]
	var repeated []byte
	for i := range 20 {
		repeated = append(repeated, page...)
		repeated = append(repeated, fmt.Sprintf("row%05d", i)...)
	}
	text := bytes.Repeat([]byte("com.example.www/index.html contents:"), 500)
	return [][]byte{nil, {1}, []byte("abc"), random, repeated, text, random[:lcsChunk*2+1]}
}

func TestRoundTrip(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, id := range []ID{None, Snappy, Zstd, TwoPass} {
		c, err := Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if c.ID() != id {
			t.Fatalf("Lookup(%v).ID() = %v", id, c.ID())
		}
		for i, in := range inputs(rng) {
			enc := c.Compress(nil, in)
			out, err := c.Decompress(nil, enc)
			if err != nil {
				t.Fatalf("%v input %d: %v", id, i, err)
			}
			if !bytes.Equal(out, in) {
				t.Fatalf("%v input %d: round trip differs", id, i)
			}
			t.Logf("%v input %d: %d → %d bytes", id, i, len(in), len(enc))
		}
	}
}

func TestTwoPassFindsLongRepeats(t *testing.T) {
	// A page repeated beyond snappy's 64 KiB window: only the first pass
	// can see the repeat.
	rng := rand.New(rand.NewPCG(1, 2))
	page := inputs(rng)[3]
	in := append(bytes.Clone(page), page...)
	c, _ := Lookup(TwoPass)
	s, _ := Lookup(Snappy)
	tp, sn := len(c.Compress(nil, in)), len(s.Compress(nil, in))
	t.Logf("%d bytes: two-pass %d, snappy %d", len(in), tp, sn)
	if tp*3 > sn*2 {
		t.Fatalf("two-pass %d bytes, snappy %d: long repeats not found", tp, sn)
	}
}

func TestRandomInputsFail(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, id := range []ID{Snappy, Zstd, TwoPass} {
		c, _ := Lookup(id)
		good := c.Compress(nil, inputs(rng)[4])
		for i := 0; i < 2000; i++ {
			bad := bytes.Clone(good)
			bad[rng.IntN(len(bad))] ^= byte(1 << rng.IntN(8))
			if _, err := c.Decompress(nil, bad); err != nil && !errors.Is(err, base.ErrCorruption) {
				t.Fatalf("%v: error %v is not a corruption", id, err)
			}
		}
	}
}

func TestLookupAndParse(t *testing.T) {
	if _, err := Lookup(9); !errors.Is(err, base.ErrInvalidArgument) {
		t.Fatalf("Lookup(9) = %v", err)
	}
	for _, id := range []ID{None, Snappy, Zstd, TwoPass} {
		got, err := Parse(id.String())
		if err != nil || got != id {
			t.Fatalf("Parse(%q) = %v, %v", id.String(), got, err)
		}
	}
	if _, err := Parse("lz4"); err == nil {
		t.Fatal("Parse(lz4) succeeded")
	}
}

func FuzzDecompress(f *testing.F) {
	for _, id := range []ID{Snappy, Zstd, TwoPass} {
		c, _ := Lookup(id)
		f.Add(uint8(id), c.Compress(nil, bytes.Repeat([]byte("tabula-"), 40)))
	}
	f.Fuzz(func(t *testing.T, id uint8, data []byte) {
		c, err := Lookup(ID(id % 4))
		if err != nil {
			return
		}
		c.Decompress(nil, data)
	})
}

func BenchmarkCompress(b *testing.B) {
	in := inputs(rand.New(rand.NewPCG(5, 6)))[4][:32<<10]
	for _, id := range []ID{Snappy, Zstd, TwoPass} {
		c, _ := Lookup(id)
		b.Run(id.String(), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			var dst []byte
			for b.Loop() {
				dst = c.Compress(dst, in)
			}
		})
	}
}

func BenchmarkDecompress(b *testing.B) {
	in := inputs(rand.New(rand.NewPCG(5, 6)))[4][:32<<10]
	for _, id := range []ID{Snappy, Zstd, TwoPass} {
		c, _ := Lookup(id)
		enc := c.Compress(nil, in)
		b.Run(id.String(), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			var dst []byte
			for b.Loop() {
				dst, _ = c.Decompress(dst, enc)
			}
		})
	}
}
