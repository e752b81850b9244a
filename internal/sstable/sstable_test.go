package sstable

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/compress"
	"github.com/tabuladb/tabula/internal/vfs"
)

var seedFlag = flag.Uint64("seed", 0, "random seed (0 picks one)")

func testSeed(t testing.TB) uint64 {
	s := *seedFlag
	if s == 0 {
		s = rand.Uint64()
	}
	t.Logf("seed %d (replay with -seed=%d)", s, s)
	return s
}

type kv struct{ k, v []byte }

func randomKVs(rng *rand.Rand, n int) []kv {
	seen := map[string]bool{}
	var out []kv
	for len(out) < n {
		k := fmt.Appendf(nil, "row%05d/%s", rng.IntN(n*4), bytes.Repeat([]byte{byte('a' + rng.IntN(26))}, rng.IntN(12)))
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		v := make([]byte, rng.IntN(300))
		for i := range v {
			v[i] = byte('a' + rng.IntN(4)) // compressible
		}
		out = append(out, kv{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].k, out[j].k) < 0 })
	return out
}

func writeTable(t testing.TB, fs vfs.FS, name string, kvs []kv, opts WriterOptions) Meta {
	t.Helper()
	f, err := fs.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(f, opts)
	for _, e := range kvs {
		if err := w.Add(e.k, e.v); err != nil {
			t.Fatal(err)
		}
	}
	m, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func openTable(t testing.TB, fs vfs.FS, name string, opts ReaderOptions) *Reader {
	t.Helper()
	f, err := fs.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	opts.FileName = name
	r, err := Open(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type mapCache map[[2]uint64][]byte

func (c mapCache) Get(f, o uint64) ([]byte, bool) { b, ok := c[[2]uint64{f, o}]; return b, ok }
func (c mapCache) Set(f, o uint64, b []byte)      { c[[2]uint64{f, o}] = b }

// TestIterDifferential checks random seeks and steps, with random bounds,
// against a sorted slice, for every codec and several block sizes.
func TestIterDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed(t), 1))
	configs := []struct {
		codec compress.ID
		block int
		ropts ReaderOptions
	}{
		{compress.None, 256, ReaderOptions{}},
		{compress.Snappy, 1024, ReaderOptions{Cache: mapCache{}}},
		{compress.Zstd, 4096, ReaderOptions{Preload: true}},
		{compress.TwoPass, 64 << 10, ReaderOptions{}},
	}
	for _, c := range configs {
		t.Run(fmt.Sprintf("%s/%d", c.codec, c.block), func(t *testing.T) {
			fs := vfs.NewMem()
			kvs := randomKVs(rng, 1+rng.IntN(2000))
			m := writeTable(t, fs, "t.sst", kvs, WriterOptions{BlockSize: c.block, Compression: c.codec, RestartInterval: 1 + rng.IntN(20), BloomBitsPerKey: 10})
			if m.Props.NumEntries != uint64(len(kvs)) || !bytes.Equal(m.Props.SmallestKey, kvs[0].k) || !bytes.Equal(m.Props.LargestKey, kvs[len(kvs)-1].k) {
				t.Fatalf("props %+v", m.Props)
			}
			r := openTable(t, fs, "t.sst", c.ropts)
			defer r.Close()
			if r.Size() != m.Size || r.Properties().NumEntries != m.Props.NumEntries {
				t.Fatalf("size %d vs %d", r.Size(), m.Size)
			}
			for _, e := range kvs {
				if !r.MayContain(e.k) {
					t.Fatalf("bloom misses %q", e.k)
				}
			}
			for round := 0; round < 50; round++ {
				checkIter(t, rng, r, kvs)
			}
		})
	}
}

func randKey(rng *rand.Rand, kvs []kv) []byte {
	if rng.IntN(3) == 0 {
		return append(bytes.Clone(kvs[rng.IntN(len(kvs))].k), byte(rng.IntN(3)))
	}
	if rng.IntN(2) == 0 {
		return kvs[rng.IntN(len(kvs))].k
	}
	return fmt.Appendf(nil, "row%05d", rng.IntN(len(kvs)*5))
}

func checkIter(t *testing.T, rng *rand.Rand, r *Reader, kvs []kv) {
	var lower, upper []byte
	if rng.IntN(2) == 0 {
		lower = randKey(rng, kvs)
	}
	if rng.IntN(2) == 0 {
		upper = randKey(rng, kvs)
	}
	in := func(k []byte) bool {
		return (lower == nil || bytes.Compare(k, lower) >= 0) && (upper == nil || bytes.Compare(k, upper) < 0)
	}
	var want []kv
	for _, e := range kvs {
		if in(e.k) {
			want = append(want, e)
		}
	}
	it := r.NewIter(lower, upper)
	defer it.Close()
	pos := -1 // index into want, or -1 / len when invalid
	check := func(op string, ok bool) {
		t.Helper()
		if wantOK := pos >= 0 && pos < len(want); ok != wantOK {
			t.Fatalf("%s [%q,%q): ok=%v want %v (pos %d/%d) err=%v", op, lower, upper, ok, wantOK, pos, len(want), it.Error())
		}
		if ok && (!bytes.Equal(it.Key(), want[pos].k) || !bytes.Equal(it.Value(), want[pos].v)) {
			t.Fatalf("%s: got %q want %q", op, it.Key(), want[pos].k)
		}
	}
	for step := 0; step < 40; step++ {
		switch rng.IntN(6) {
		case 0:
			pos = 0
			check("First", it.First())
		case 1:
			pos = len(want) - 1
			check("Last", it.Last())
		case 2:
			k := randKey(rng, kvs)
			pos = sort.Search(len(want), func(i int) bool { return bytes.Compare(want[i].k, k) >= 0 })
			check(fmt.Sprintf("SeekGE(%q)", k), it.SeekGE(k))
		case 3:
			k := randKey(rng, kvs)
			pos = sort.Search(len(want), func(i int) bool { return bytes.Compare(want[i].k, k) >= 0 }) - 1
			check(fmt.Sprintf("SeekLT(%q)", k), it.SeekLT(k))
		case 4:
			if pos < 0 || pos >= len(want) {
				if it.Next() {
					t.Fatal("Next on an invalid iterator moved")
				}
				continue
			}
			pos++
			check("Next", it.Next())
		case 5:
			if pos < 0 || pos >= len(want) {
				continue
			}
			pos--
			check("Prev", it.Prev())
		}
	}
	if it.Error() != nil {
		t.Fatal(it.Error())
	}
}

func TestEmptyTable(t *testing.T) {
	fs := vfs.NewMem()
	writeTable(t, fs, "e.sst", nil, WriterOptions{BloomBitsPerKey: 10})
	r := openTable(t, fs, "e.sst", ReaderOptions{})
	defer r.Close()
	it := r.NewIter(nil, nil)
	if it.First() || it.Last() || it.SeekGE([]byte("a")) || it.SeekLT([]byte("z")) {
		t.Fatal("empty table has an entry")
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if r.MayContain([]byte("a")) {
		t.Fatal("empty bloom filter matches")
	}
}

func TestWriterRejectsUnsortedKeys(t *testing.T) {
	fs := vfs.NewMem()
	f, _ := fs.Create("x.sst")
	w := NewWriter(f, WriterOptions{})
	if err := w.Add([]byte("b"), nil); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"b", "a"} {
		if err := w.Add([]byte(k), nil); !errors.Is(err, base.ErrInvalidArgument) {
			t.Fatalf("Add(%q) after b: %v", k, err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f2, _ := fs.Create("y.sst")
	if _, err := NewWriter(f2, WriterOptions{BlockSize: -1}).Close(); !errors.Is(err, base.ErrInvalidArgument) {
		t.Fatalf("bad options: %v", err)
	}
}

func TestFilterPrefixes(t *testing.T) {
	fs := vfs.NewMem()
	rows := func(key []byte, add func([]byte)) { add(key[:bytes.IndexByte(key, '/')]) }
	kvs := []kv{{[]byte("apple/1"), nil}, {[]byte("apple/2"), nil}, {[]byte("pear/1"), nil}}
	writeTable(t, fs, "p.sst", kvs, WriterOptions{BloomBitsPerKey: 10, FilterPrefixes: rows})
	r := openTable(t, fs, "p.sst", ReaderOptions{})
	defer r.Close()
	if !r.MayContain([]byte("apple")) || !r.MayContain([]byte("pear")) {
		t.Fatal("filter misses a row")
	}
	if got := r.Properties().FilterPrefixes; got != 2 {
		t.Fatalf("FilterPrefixes = %d, want 2", got)
	}
	misses := 0
	for i := 0; i < 1000; i++ {
		if !r.MayContain(fmt.Appendf(nil, "absent%d", i)) {
			misses++
		}
	}
	if misses < 900 {
		t.Fatalf("filter rejects only %d/1000 absent rows", misses)
	}
}

func TestApproximateOffsetAndIndex(t *testing.T) {
	fs := vfs.NewMem()
	rng := rand.New(rand.NewPCG(1, 2))
	kvs := randomKVs(rng, 3000)
	m := writeTable(t, fs, "a.sst", kvs, WriterOptions{BlockSize: 2048})
	r := openTable(t, fs, "a.sst", ReaderOptions{})
	defer r.Close()
	entries := r.IndexEntries()
	if uint64(len(entries)) != m.Props.DataBlocks || len(entries) < 10 {
		t.Fatalf("%d index entries, %d blocks", len(entries), m.Props.DataBlocks)
	}
	prev := uint64(0)
	for _, e := range kvs {
		off := r.ApproximateOffset(e.k)
		if off < prev {
			t.Fatalf("offset of %q went back: %d < %d", e.k, off, prev)
		}
		prev = off
	}
	if r.ApproximateOffset([]byte("zzz")) != m.Props.DataSize {
		t.Fatal("offset past the end is not the data size")
	}
}

// TestCorruptionDetected flips every bit of a small table, one at a time,
// and checks that no read returns data the writer did not write.
func TestCorruptionDetected(t *testing.T) {
	fs := vfs.NewMem()
	rng := rand.New(rand.NewPCG(3, 4))
	kvs := randomKVs(rng, 60)
	for _, codec := range []compress.ID{compress.None, compress.Snappy} {
		writeTable(t, fs, "c.sst", kvs, WriterOptions{BlockSize: 512, Compression: codec, BloomBitsPerKey: 10})
		orig := readAll(t, fs, "c.sst")
		for bit := 0; bit < len(orig)*8; bit += 3 {
			b := bytes.Clone(orig)
			b[bit/8] ^= 1 << (bit % 8)
			f, _ := fs.Create("d.sst")
			f.Write(b)
			f.Close()
			f, _ = fs.Open("d.sst")
			r, err := Open(f, ReaderOptions{FileName: "d.sst"})
			if err != nil {
				if !errors.Is(err, base.ErrCorruption) {
					t.Fatalf("bit %d: open error %v is not corruption", bit, err)
				}
				continue
			}
			it := r.NewIter(nil, nil)
			i := 0
			for ok := it.First(); ok; ok = it.Next() {
				if i >= len(kvs) || !bytes.Equal(it.Key(), kvs[i].k) || !bytes.Equal(it.Value(), kvs[i].v) {
					t.Fatalf("bit %d flipped: entry %d read as %q", bit, i, it.Key())
				}
				i++
			}
			if err := it.Close(); err != nil {
				if !errors.Is(err, base.ErrCorruption) {
					t.Fatalf("bit %d: iter error %v is not corruption", bit, err)
				}
			} else {
				t.Fatalf("bit %d flipped and not detected (%d entries read)", bit, i)
			}
			r.Close()
		}
	}
}

func readAll(t testing.TB, fs vfs.FS, name string) []byte {
	f, err := fs.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	b := make([]byte, fi.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return b
}

// A filter sized up front answers like one sized at Close.
func TestPresizedFilter(t *testing.T) {
	fs := vfs.NewMem()
	kvs := randomKVs(rand.New(rand.NewPCG(5, 6)), 2000)
	m := writeTable(t, fs, "p.sst", kvs, WriterOptions{BloomBitsPerKey: 10, ExpectedPrefixes: len(kvs)})
	if m.Props.FilterPrefixes != uint64(len(kvs)) {
		t.Fatalf("FilterPrefixes = %d, want %d", m.Props.FilterPrefixes, len(kvs))
	}
	r := openTable(t, fs, "p.sst", ReaderOptions{})
	defer r.Close()
	for _, e := range kvs {
		if !r.MayContain(e.k) {
			t.Fatalf("presized filter misses %q", e.k)
		}
	}
	fp := 0
	for i := 0; i < 2000; i++ {
		if r.MayContain(fmt.Appendf(nil, "absent%d", i)) {
			fp++
		}
	}
	if fp > 100 {
		t.Fatalf("%d/2000 false positives", fp)
	}
}

// A compaction iterator reads through the cache but never fills it.
func TestCompactionIterLeavesCache(t *testing.T) {
	fs := vfs.NewMem()
	kvs := randomKVs(rand.New(rand.NewPCG(7, 8)), 500)
	writeTable(t, fs, "c.sst", kvs, WriterOptions{BlockSize: 1024})
	c := mapCache{}
	r := openTable(t, fs, "c.sst", ReaderOptions{Cache: c})
	defer r.Close()
	it := r.NewCompactionIter(nil, nil)
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if !bytes.Equal(it.Key(), kvs[n].k) || !bytes.Equal(it.Value(), kvs[n].v) {
			t.Fatalf("entry %d: %q", n, it.Key())
		}
		n++
	}
	if err := it.Close(); err != nil || n != len(kvs) {
		t.Fatalf("%d entries, %v", n, err)
	}
	if len(c) != 0 {
		t.Fatalf("compaction iterator cached %d blocks", len(c))
	}
}
