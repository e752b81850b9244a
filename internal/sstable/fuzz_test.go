package sstable

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tabuladb/tabula/internal/compress"
	"github.com/tabuladb/tabula/internal/vfs"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the checked-in fuzz seed corpora")

// sampleTable returns the bytes of a small valid table and its index handle.
func sampleTable(t testing.TB, codec compress.ID) []byte {
	fs := vfs.NewMem()
	var kvs []kv
	for i := 0; i < 40; i++ {
		kvs = append(kvs, kv{fmt.Appendf(nil, "row%03d/col", i), fmt.Appendf(nil, "value-%d-%d", i, i*i)})
	}
	writeTable(t, fs, "s.sst", kvs, WriterOptions{BlockSize: 256, RestartInterval: 4, Compression: codec, BloomBitsPerKey: 10})
	return readAll(t, fs, "s.sst")
}

// exerciseBlock drives every blockIter move over b; it must not panic.
func exerciseBlock(b []byte) {
	var it blockIter
	if it.init(b, "fuzz", 0) != nil {
		return
	}
	n := 0
	for ok := it.first(); ok && n < 10000; ok = it.nextEntry() {
		n++
	}
	for ok := it.last(); ok && n < 20000; ok = it.prevEntry() {
		n++
	}
	it.seekGE([]byte("row010"))
	it.seekLT([]byte("row020"))
	it.seekLT(nil)
}

// exerciseTable opens b as a table and reads all of it both ways.
func exerciseTable(b []byte) {
	fs := vfs.NewMem()
	f, _ := fs.Create("f.sst")
	f.Write(b)
	f.Close()
	f, _ = fs.Open("f.sst")
	r, err := Open(f, ReaderOptions{FileName: "f.sst"})
	if err != nil {
		return
	}
	defer r.Close()
	it := r.NewIter(nil, nil)
	n := 0
	for ok := it.First(); ok && n < 10000; ok = it.Next() {
		n++
	}
	for ok := it.Last(); ok && n < 20000; ok = it.Prev() {
		n++
	}
	it.SeekGE([]byte("row010"))
	it.SeekLT([]byte("row020"))
	it.Close()
	r.MayContain([]byte("row001"))
	r.ApproximateOffset([]byte("row030"))
}

func FuzzBlock(f *testing.F) {
	var bb blockBuilder
	bb.restartInterval = 3
	for i := 0; i < 10; i++ {
		bb.add(fmt.Appendf(nil, "row%03d", i), []byte("v"))
	}
	f.Add(bb.finish())
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) { exerciseBlock(b) })
}

// FuzzIndex replaces the index block payload of a valid table (keeping its
// checksums valid), so the fuzzer reaches the index decoding.
func FuzzIndex(f *testing.F) {
	table := sampleTable(f, compress.None)
	ft, _ := decodeFooter(table[len(table)-footerLen:], uint64(len(table)))
	f.Add(table[ft.index.offset : ft.index.offset+ft.index.size])
	f.Fuzz(func(t *testing.T, index []byte) {
		tb := sampleTable(t, compress.None)
		ft, _ := decodeFooter(tb[len(tb)-footerLen:], uint64(len(tb)))
		out := append([]byte{}, tb[:ft.index.offset]...)
		ft.index = handle{offset: uint64(len(out)), size: uint64(len(index))}
		out = append(out, index...)
		out = appendTrailer(out[:len(out):len(out)], compress.None)
		props := tb[ft.props.offset:ft.props.end()]
		ft.props = handle{offset: uint64(len(out)), size: uint64(len(props)) - trailerLen}
		out = append(out, props...)
		out = ft.encode(out)
		exerciseTable(out)
	})
}

func FuzzFooter(f *testing.F) {
	for _, c := range []compress.ID{compress.None, compress.Snappy} {
		f.Add(sampleTable(f, c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= footerLen {
			decodeFooter(b[len(b)-footerLen:], uint64(len(b)))
		}
		exerciseTable(b)
	})
}

// TestWriteFuzzCorpus rewrites testdata/fuzz when run with -update-corpus.
func TestWriteFuzzCorpus(t *testing.T) {
	if !*updateCorpus {
		t.Skip("run with -update-corpus to rewrite the seed corpora")
	}
	table := sampleTable(t, compress.Snappy)
	ft, _ := decodeFooter(table[len(table)-footerLen:], uint64(len(table)))
	plain := sampleTable(t, compress.None)
	pft, _ := decodeFooter(plain[len(plain)-footerLen:], uint64(len(plain)))
	index := plain[pft.index.offset : pft.index.offset+pft.index.size]
	var bi blockIter
	if bi.init(index, "seed", 0) != nil || !bi.first() {
		t.Fatal("sample table has no index entry")
	}
	first, _ := decodeHandle(bi.val)
	seeds := map[string][][]byte{
		"FuzzBlock":  {{}, index, plain[first.offset : first.offset+first.size]},
		"FuzzIndex":  {index, []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		"FuzzFooter": {table, plain, table[ft.props.offset:]},
	}
	for name, list := range seeds {
		dir := filepath.Join("testdata", "fuzz", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, b := range list {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
