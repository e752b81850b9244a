package tablet

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// Benchmarks run on real files, so that apply pays for its fsync.

const benchValueSize = 1000

func benchHost(b *testing.B, opts Options) *Host {
	b.Helper()
	if opts.FS == nil {
		opts.FS, opts.Dir = vfs.NewOS(), b.TempDir()
	}
	h, err := Open(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	if err := h.CreateTable("t", &Schema{Families: map[string]Family{"f": {}}}, nil); err != nil {
		b.Fatal(err)
	}
	return h
}

func benchKey(i uint64) []byte { return fmt.Appendf(nil, "user%016x", i) }

func benchPut(value []byte) []base.Mutation {
	return []base.Mutation{{Kind: base.KindPut, Family: "f", Qualifier: []byte("q"), Timestamp: 1000, Value: value}}
}

// load writes n rows in random order and flushes them into SSTables.
func benchLoad(b *testing.B, h *Host, n int) {
	b.Helper()
	value := make([]byte, benchValueSize)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(n) {
		if err := h.Apply("t", benchKey(uint64(i)), benchPut(value)); err != nil {
			b.Fatal(err)
		}
	}
	ts, _ := h.Tablets("t")
	for _, t := range ts {
		if err := t.Compact(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApply measures durable single-row writes from many goroutines:
// each returns once its record is synced, so writers share syncs.
func BenchmarkApply(b *testing.B) {
	h := benchHost(b, Options{})
	var n atomic.Uint64
	value := make([]byte, benchValueSize)
	b.SetParallelism(8)
	b.SetBytes(benchValueSize)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := h.Apply("t", benchKey(n.Add(1)), benchPut(value)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkPointRead reads random existing rows from SSTables through the
// block cache.
func BenchmarkPointRead(b *testing.B) {
	const rows = 20000
	h := benchHost(b, Options{})
	benchLoad(b, h, rows)
	rng := rand.New(rand.NewPCG(3, 4))
	b.ResetTimer()
	for b.Loop() {
		r, err := h.ReadRow("t", benchKey(rng.Uint64N(rows)))
		if err != nil || len(r.Cells) != 1 {
			b.Fatalf("read: %v, %d cells", err, len(r.Cells))
		}
	}
}

// BenchmarkScan scans a table of SSTables from first row to last.
func BenchmarkScan(b *testing.B) {
	const rows = 20000
	h := benchHost(b, Options{})
	benchLoad(b, h, rows)
	b.SetBytes(rows * benchValueSize)
	b.ResetTimer()
	for b.Loop() {
		n := 0
		err := h.Scan("t", ScanOptions{}, func(base.Row) bool { n++; return true })
		if err != nil || n != rows {
			b.Fatalf("scan: %v, %d rows", err, n)
		}
	}
}

// BenchmarkFlush measures writing a full memtable to an SSTable.
func BenchmarkFlush(b *testing.B) {
	h := benchHost(b, Options{TestingKnobs: TestingKnobs{DisableBackground: true}})
	ts, _ := h.Tablets("t")
	value := make([]byte, benchValueSize)
	const rows = 4000
	b.SetBytes(rows * benchValueSize)
	var next uint64
	for b.Loop() {
		b.StopTimer()
		for range rows {
			next++
			if err := ts[0].Apply(benchKey(next), benchPut(value)); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if err := ts[0].Flush(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompaction measures a major compaction of several SSTables;
// each round compacts a fresh table.
func BenchmarkCompaction(b *testing.B) {
	h := benchHost(b, Options{TestingKnobs: TestingKnobs{DisableBackground: true}})
	value := make([]byte, benchValueSize)
	const rows, files = 2000, 4
	b.SetBytes(rows * files * benchValueSize)
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		name := fmt.Sprintf("c%d", round)
		if err := h.CreateTable(name, &Schema{Families: map[string]Family{"f": {}}}, nil); err != nil {
			b.Fatal(err)
		}
		ts, _ := h.Tablets(name)
		for f := range files {
			for i := range rows {
				if err := ts[0].Apply(benchKey(uint64(i*files+f)), benchPut(value)); err != nil {
					b.Fatal(err)
				}
			}
			if err := ts[0].Flush(); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if err := ts[0].Compact(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := h.DeleteTable(name); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
