package tablet

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// armedFault fails every op of one kind on files whose name contains a
// substring, once armed.
type armedFault struct {
	armed atomic.Bool
	op    vfs.Op
	name  string
}

func (f *armedFault) MaybeError(op vfs.Op, name string) error {
	if f.armed.Load() && op == f.op && strings.Contains(name, f.name) {
		return fmt.Errorf("%s %s: %w", op, name, vfs.ErrInjected)
	}
	return nil
}

func faultRow(i int) (row []byte, muts []base.Mutation) {
	row = fmt.Appendf(nil, "row%04d", i)
	for _, f := range []string{"a", "b", "c"} {
		muts = append(muts, base.Mutation{Kind: base.KindPut, Family: f, Qualifier: []byte("q"), Timestamp: 1000, Value: row})
	}
	return row, muts
}

// A failed log write or sync fails the write that needed it, and every
// write after it: nothing is acknowledged that a crash could lose. After a
// crash, everything acknowledged before the fault is there.
func TestLogFaultsStopWrites(t *testing.T) {
	for _, op := range []vfs.Op{vfs.OpWrite, vfs.OpSync} {
		t.Run(op.String(), func(t *testing.T) {
			mem := vfs.NewMem()
			fault := &armedFault{op: op, name: "/log/"}
			opts := Options{FS: vfs.NewErrorFS(mem, fault), Dir: "db", MemtableSize: 8 << 10, Seed: 1}
			h, err := Open(opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.CreateTable("t", crashSchema(), nil); err != nil {
				t.Fatal(err)
			}
			acked := 0
			for i := 0; i < 50; i++ {
				row, muts := faultRow(i)
				if err := h.Apply("t", row, muts); err != nil {
					t.Fatal(err)
				}
				acked++
			}
			fault.armed.Store(true)
			row, muts := faultRow(50)
			if err := h.Apply("t", row, muts); !errors.Is(err, vfs.ErrInjected) {
				t.Fatalf("apply during a log %s fault: %v, want the injected error", op, err)
			}
			fault.armed.Store(false)
			for i := 51; i < 60; i++ {
				row, muts := faultRow(i)
				if err := h.Apply("t", row, muts); err == nil {
					t.Fatalf("apply %d after a failed log %s was acknowledged", i, op)
				}
			}
			h.Close()

			opts.FS = mem.CrashClone(vfs.CrashCloneOptions{UnsyncedData: vfs.DropUnsynced})
			h, err = Open(opts)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			for i := 0; i < acked; i++ {
				row, _ := faultRow(i)
				r, err := h.ReadRow("t", row)
				if err != nil || len(r.Cells) != 3 {
					t.Fatalf("acknowledged row %q after the crash: %d cells, %v", row, len(r.Cells), err)
				}
			}
		})
	}
}

// A flush that cannot write its SSTable reports the error and loses
// nothing: the data stays in the log and comes back on reopen.
func TestFlushFaultKeepsData(t *testing.T) {
	mem := vfs.NewMem()
	fault := &armedFault{op: vfs.OpWrite, name: "/sst/"}
	opts := Options{FS: vfs.NewErrorFS(mem, fault), Dir: "db", Seed: 1, TestingKnobs: TestingKnobs{DisableBackground: true}}
	h := openWithRows(t, opts, 100)
	fault.armed.Store(true)
	tb, _ := h.TabletFor("t", []byte("row"))
	if err := tb.Flush(); !errors.Is(err, vfs.ErrInjected) {
		t.Fatalf("flush during an SSTable write fault: %v", err)
	}
	fault.armed.Store(false)
	h.Close()

	opts.FS = mem.CrashClone(vfs.CrashCloneOptions{UnsyncedData: vfs.DropUnsynced})
	h, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	n := 0
	if err := h.Scan("t", ScanOptions{}, func(r base.Row) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	if n != 100 {
		t.Fatalf("%d rows after a failed flush and reopen, want 100", n)
	}
}

// openWithRows opens a host with table "t" holding rows 0..n-1.
func openWithRows(t *testing.T, opts Options, n int) *Host {
	t.Helper()
	h, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.CreateTable("t", crashSchema(), nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		row, muts := faultRow(i)
		if err := h.Apply("t", row, muts); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// A flipped bit in an SSTable is reported as corruption, never returned
// as data.
func TestSSTableBitFlipDetected(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, Dir: "db", Seed: 1, TestingKnobs: TestingKnobs{DisableBackground: true}}
	h := openWithRows(t, opts, 200)
	tb, _ := h.TabletFor("t", []byte("row"))
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	h.Close()

	for seed := uint64(0); seed < 20; seed++ {
		opts.FS = vfs.NewErrorFS(mem.CrashClone(vfs.CrashCloneOptions{}), vfs.FlipBit("/sst/", rand.New(rand.NewPCG(seed, 0))))
		h, err := Open(opts)
		if err != nil {
			if !errors.Is(err, base.ErrCorruption) {
				t.Fatalf("seed %d: open: %v, want corruption", seed, err)
			}
			continue
		}
		err = h.Scan("t", ScanOptions{}, func(r base.Row) bool {
			t.Fatalf("seed %d: a scan over flipped bits returned row %q", seed, r.Key)
			return false
		})
		if !errors.Is(err, base.ErrCorruption) {
			t.Fatalf("seed %d: scan over flipped bits: %v, want corruption", seed, err)
		}
		h.Close()
	}
}

// A flipped bit in a log record that is not the last one stops recovery
// with an error naming the segment, instead of dropping acknowledged
// writes.
func TestLogBitFlipDetected(t *testing.T) {
	mem := vfs.NewMem()
	opts := Options{FS: mem, Dir: "db", Seed: 1, TestingKnobs: TestingKnobs{DisableBackground: true}}
	h := openWithRows(t, opts, 50)
	h.Close()
	names, err := mem.List("db/log")
	if err != nil || len(names) == 0 {
		t.Fatalf("log segments: %v %v", names, err)
	}
	seg := "db/log/" + names[len(names)-1]
	b := readFile(t, mem, seg)
	b[len(b)/3] ^= 0x10
	f, err := mem.Create(seg)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(b)
	f.Sync()
	f.Close()
	_, err = Open(opts)
	var ce *base.CorruptionError
	if !errors.As(err, &ce) || !strings.Contains(ce.File, names[len(names)-1]) {
		t.Fatalf("open over a flipped log bit: %v, want a corruption error naming %s", err, seg)
	}
}

func readFile(t *testing.T, fs vfs.FS, name string) []byte {
	t.Helper()
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
