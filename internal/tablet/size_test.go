package tablet

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// sizeRow is row i of the size tests: a 1 KiB value that does not compress.
func sizeRow(i int, rng *rand.Rand) ([]byte, []base.Mutation) {
	v := make([]byte, 1<<10)
	for j := range v {
		v[j] = byte(rng.Uint32())
	}
	return fmt.Appendf(nil, "row%05d", i), []base.Mutation{{Kind: base.KindPut, Family: "a", Qualifier: []byte("q"), Timestamp: 1000, Value: v}}
}

func loadSizeRows(t *testing.T, h *Host, table string, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range n {
		row, muts := sizeRow(i, rng)
		if err := h.Apply(table, row, muts); err != nil {
			t.Fatal(err)
		}
	}
}

func countRows(t *testing.T, h *Host, table string) int {
	t.Helper()
	n := 0
	if err := h.Scan(table, ScanOptions{}, func(base.Row) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	return n
}

func sizeTestOptions(fsys vfs.FS) Options {
	return Options{FS: fsys, Dir: "db", Seed: 1, MemtableSize: 64 << 10, MaxFrozenMemtables: 1 << 20, BlockCacheSize: 1 << 20,
		SplitSize: -1, TestingKnobs: TestingKnobs{DisableBackground: true}}
}

// A tablet's size is the bytes of its SSTables within its range; after a
// split the children share the files and each counts only its part.
func TestApproximateSize(t *testing.T) {
	h, err := Open(sizeTestOptions(vfs.NewMem()))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.CreateTable("t", &Schema{Families: map[string]Family{"a": {}}}, nil); err != nil {
		t.Fatal(err)
	}
	tb, _ := h.TabletFor("t", []byte("row"))
	if s := tb.ApproximateSize(); s != 0 {
		t.Fatalf("empty tablet has size %d", s)
	}
	loadSizeRows(t, h, "t", 400)
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	total := tb.ApproximateSize()
	if total < 400<<10 || total > 500<<10 {
		t.Fatalf("size of 400 KiB of values is %d", total)
	}
	at, ok := tb.splitKey()
	if !ok {
		t.Fatal("no split key")
	}
	if bytes.Compare(at, []byte("row00150")) < 0 || bytes.Compare(at, []byte("row00250")) > 0 {
		t.Fatalf("split key %q is not near the middle", at)
	}
	if err := h.Split(tb.ID(), at); err != nil {
		t.Fatal(err)
	}
	ts, _ := h.Tablets("t")
	l, r := ts[0].ApproximateSize(), ts[1].ApproximateSize()
	if l < total/3 || r < total/3 || l+r > total+total/10 {
		t.Fatalf("children sizes %d and %d of %d, split at %q", l, r, total, at)
	}
}

// A tablet whose data is one row has no split key strictly inside it.
func TestNoSplitKeyInOneRow(t *testing.T) {
	h, err := Open(sizeTestOptions(vfs.NewMem()))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.CreateTable("t", &Schema{Families: map[string]Family{"a": {}}}, [][]byte{[]byte("m")}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 200 {
		_, muts := sizeRow(i, rng)
		muts[0].Qualifier = fmt.Appendf(nil, "q%d", i)
		if err := h.Apply("t", []byte("m"), muts); err != nil {
			t.Fatal(err)
		}
	}
	tb, _ := h.TabletFor("t", []byte("m"))
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	if at, ok := tb.splitKey(); ok {
		t.Fatalf("split key %q in a tablet holding one row at its start", at)
	}
}

// Paper §5.3: a tablet server splits a tablet that grows past its size
// budget; the data stays readable through the splits and a reopen.
func TestSizeSplitsInBackground(t *testing.T) {
	opts := sizeTestOptions(vfs.NewMem())
	opts.SplitSize = 128 << 10
	opts.TestingKnobs.DisableBackground = false
	h, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.CreateTable("t", &Schema{Families: map[string]Family{"a": {}}}, nil); err != nil {
		t.Fatal(err)
	}
	loadSizeRows(t, h, "t", 1000)
	deadline := time.Now().Add(20 * time.Second)
	for {
		ts, _ := h.Tablets("t")
		if len(ts) >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tablets after writing 1 MiB with a split size of 128 KiB", len(ts))
		}
		for _, tb := range ts {
			tb.Flush()
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := countRows(t, h, "t"); n != 1000 {
		t.Fatalf("%d rows after splits, want 1000", n)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	opts.SplitSize = -1
	h, err = Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if n := countRows(t, h, "t"); n != 1000 {
		t.Fatalf("%d rows after reopen, want 1000", n)
	}
}

// A negative split size turns size-based splits off.
func TestNegativeSplitSizeDisablesSplits(t *testing.T) {
	h, err := Open(sizeTestOptions(vfs.NewMem()))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.CreateTable("t", &Schema{Families: map[string]Family{"a": {}}}, nil); err != nil {
		t.Fatal(err)
	}
	loadSizeRows(t, h, "t", 300)
	tb, _ := h.TabletFor("t", []byte("row"))
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := h.maybeSplit(tb); err != nil {
		t.Fatal(err)
	}
	if ts, _ := h.Tablets("t"); len(ts) != 1 {
		t.Fatalf("%d tablets with splits disabled", len(ts))
	}
}

// SampleRowKeys follows Cloud Bigtable: sorted keys with ascending offsets,
// every tablet boundary among them, and the empty key with the table's
// size last.
func TestSampleRowKeys(t *testing.T) {
	h, err := Open(sizeTestOptions(vfs.NewMem()))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.CreateTable("t", &Schema{Families: map[string]Family{"a": {}}}, [][]byte{[]byte("row00100"), []byte("zzz")}); err != nil {
		t.Fatal(err)
	}
	if got, err := h.SampleRowKeys("t"); err != nil || len(got) != 3 || len(got[2].Row) != 0 || got[2].Offset != 0 {
		t.Fatalf("samples of an empty table: %+v, %v", got, err)
	}
	loadSizeRows(t, h, "t", 1000)
	ts, _ := h.Tablets("t")
	var total int64
	for _, tb := range ts {
		if err := tb.Flush(); err != nil {
			t.Fatal(err)
		}
		total += tb.ApproximateSize()
	}
	got, err := h.sampleRowKeys("t", 100<<10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 8 || len(got) > 14 {
		t.Fatalf("%d samples of 1 MiB every 100 KiB: %+v", len(got), got)
	}
	bounds := map[string]bool{}
	for i, s := range got {
		bounds[string(s.Row)] = true
		if i == 0 {
			continue
		}
		if last := i == len(got)-1; !last && bytes.Compare(got[i-1].Row, s.Row) >= 0 || s.Offset < got[i-1].Offset {
			t.Fatalf("samples out of order at %d: %+v", i, got)
		}
	}
	if !bounds["row00100"] || !bounds["zzz"] {
		t.Fatalf("tablet boundaries missing from %+v", got)
	}
	if end := got[len(got)-1]; len(end.Row) != 0 || end.Offset != total {
		t.Fatalf("last sample %+v, want the empty key at %d", end, total)
	}
	if _, err := h.SampleRowKeys("nope"); !errors.Is(err, base.ErrNotFound) {
		t.Fatalf("samples of an unknown table: %v", err)
	}
}
