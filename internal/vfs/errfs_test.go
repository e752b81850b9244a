package vfs

import (
	"errors"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
)

func TestOpString(t *testing.T) {
	for op, want := range map[Op]string{
		OpCreate: "create", OpOpen: "open", OpWrite: "write", OpSync: "sync",
		OpRename: "rename", OpRemove: "remove", OpRead: "read", OpMkdir: "mkdir",
		OpList: "list", OpStat: "stat", OpTruncate: "truncate", OpLock: "lock",
		Op(99): "op(99)",
	} {
		if got := op.String(); got != want {
			t.Errorf("Op(%d).String() = %q, want %q", int(op), got, want)
		}
	}
}

// writeN makes n one-byte writes to a fresh file of an ErrorFS over a
// MemFS and returns which failed and what the file holds.
func writeN(t *testing.T, inj Injector, n int) (failed []bool, contents string) {
	t.Helper()
	mem := NewMem()
	fs := NewErrorFS(mem, inj)
	f, err := fs.Create("f")
	mustOK(t, err)
	for i := range n {
		k, err := f.Write([]byte{byte('0' + i)})
		if err != nil {
			wantIs(t, err, ErrInjected)
			if k != 0 {
				t.Fatalf("a failed Write reported %d bytes", k)
			}
		}
		failed = append(failed, err != nil)
	}
	return failed, readAll(t, mem, "f")
}

func TestFailNth(t *testing.T) {
	failed, got := writeN(t, FailNth(OpWrite, 3), 6)
	want := []bool{false, false, true, false, false, false}
	if !slices.Equal(failed, want) || got != "01345" {
		t.Fatalf("failed %v, file %q; want %v, %q", failed, got, want, "01345")
	}
}

func TestFailFrom(t *testing.T) {
	failed, got := writeN(t, FailFrom(OpWrite, 2), 5)
	want := []bool{false, true, true, true, true}
	if !slices.Equal(failed, want) || got != "0" {
		t.Fatalf("failed %v, file %q; want %v, %q", failed, got, want, "0")
	}
}

func TestFailNthOtherOps(t *testing.T) {
	failed, _ := writeN(t, Any(FailFrom(OpSync, 1), FailNth(OpRead, 1)), 3)
	if !slices.Equal(failed, []bool{false, false, false}) {
		t.Fatalf("writes failed %v under sync and read injectors", failed)
	}
}

func TestFailNthConcurrent(t *testing.T) {
	inj := FailNth(OpWrite, 50)
	fs := NewErrorFS(NewMem(), inj)
	f, err := fs.Create("f")
	mustOK(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	fails := 0
	for range 100 {
		wg.Go(func() {
			if _, err := f.Write([]byte("x")); err != nil {
				mu.Lock()
				fails++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	fi, err := f.Stat()
	mustOK(t, err)
	if fails != 1 || fi.Size() != 99 {
		t.Fatalf("%d writes failed, file has %d bytes; want 1 and 99", fails, fi.Size())
	}
}

// TestErrorFSOps checks that each operation consults the injector with its
// Op and name, and that a failed operation leaves the inner FS alone.
func TestErrorFSOps(t *testing.T) {
	cases := []struct {
		op   Op
		name string
		run  func(fs FS) error
	}{
		{OpCreate, "d/new", func(fs FS) error { _, err := fs.Create("d/new"); return err }},
		{OpOpen, "d/f", func(fs FS) error { _, err := fs.Open("d/f"); return err }},
		{OpOpen, "d/f", func(fs FS) error { _, err := fs.OpenReadWrite("d/f"); return err }},
		{OpOpen, "d", func(fs FS) error { _, err := fs.OpenDir("d"); return err }},
		{OpRemove, "d/f", func(fs FS) error { return fs.Remove("d/f") }},
		{OpRemove, "d", func(fs FS) error { return fs.RemoveAll("d") }},
		{OpRename, "d/f", func(fs FS) error { return fs.Rename("d/f", "d/g") }},
		{OpMkdir, "d/e", func(fs FS) error { return fs.MkdirAll("d/e", 0o755) }},
		{OpList, "d", func(fs FS) error { _, err := fs.List("d"); return err }},
		{OpStat, "d/f", func(fs FS) error { _, err := fs.Stat("d/f"); return err }},
		{OpLock, "d/LOCK", func(fs FS) error { _, err := fs.Lock("d/LOCK"); return err }},
		{OpWrite, "d/f", func(fs FS) error {
			return onFile(fs, func(f File) error { _, err := f.Write([]byte("x")); return err })
		}},
		{OpSync, "d/f", func(fs FS) error { return onFile(fs, File.Sync) }},
		{OpStat, "d/f", func(fs FS) error { return onFile(fs, func(f File) error { _, err := f.Stat(); return err }) }},
		{OpTruncate, "d/f", func(fs FS) error { return onFile(fs, func(f File) error { return f.Truncate(0) }) }},
		{OpRead, "d/f", func(fs FS) error {
			return onFile(fs, func(f File) error { _, err := f.Read(make([]byte, 1)); return err })
		}},
		{OpRead, "d/f", func(fs FS) error {
			return onFile(fs, func(f File) error { _, err := f.ReadAt(make([]byte, 1), 0); return err })
		}},
	}
	for _, c := range cases {
		t.Run(c.op.String(), func(t *testing.T) {
			mem := NewMem()
			mustOK(t, mem.MkdirAll("d", 0o755))
			writeFile(t, mem, "d/f", "data")
			fs := NewErrorFS(mem, InjectorFunc(func(op Op, name string) error {
				if op == c.op && name == c.name {
					return injected(op, name)
				}
				return nil
			}))
			err := c.run(fs)
			wantIs(t, err, ErrInjected)
			var pe *os.PathError
			if !errors.As(err, &pe) || pe.Op != c.op.String() || pe.Path != c.name {
				t.Fatalf("err = %v, want a PathError for %s %s", err, c.op, c.name)
			}
			checkList(t, mem, "d", "f")
			checkContents(t, mem, "d/f", "data")
		})
	}
}

// onFile opens d/f for reading and writing through fs and runs do on it.
func onFile(fs FS, do func(File) error) error {
	f, err := fs.OpenReadWrite("d/f")
	if err != nil {
		return err
	}
	defer f.Close()
	return do(f)
}

func TestFlipBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	mem := NewMem()
	writeFile(t, mem, "000001.sst", string(data))
	writeFile(t, mem, "000002.log", string(data))
	fs := NewErrorFS(mem, FlipBit(".sst", rng))

	for range 20 {
		f, err := fs.Open("000001.sst")
		mustOK(t, err)
		got, err := io.ReadAll(f)
		mustOK(t, err)
		// ReadAll reads in chunks, each with one flipped bit.
		if d := bitDiff(got, data); d < 1 {
			t.Fatalf("ReadAll saw %d flipped bits", d)
		}
		p := make([]byte, 100)
		n, err := f.ReadAt(p, 1000)
		mustOK(t, err)
		if d := bitDiff(p[:n], data[1000:1100]); d != 1 {
			t.Fatalf("ReadAt saw %d flipped bits, want 1", d)
		}
		mustOK(t, f.Close())
	}
	checkContents(t, fs, "000002.log", string(data))
	checkContents(t, mem, "000001.sst", string(data))

	// Inside Any, FlipBit still corrupts.
	fs = NewErrorFS(mem, Any(FailNth(OpWrite, 1), FlipBit("sst", rng)))
	f, err := fs.Open("000001.sst")
	mustOK(t, err)
	defer f.Close()
	p := make([]byte, 10)
	_, err = f.ReadAt(p, 0)
	mustOK(t, err)
	if d := bitDiff(p, data[:10]); d != 1 {
		t.Fatalf("ReadAt through Any saw %d flipped bits, want 1", d)
	}
}

func bitDiff(a, b []byte) int {
	if len(a) != len(b) {
		return -1
	}
	d := 0
	for i := range a {
		d += bits.OnesCount8(a[i] ^ b[i])
	}
	return d
}

// ErrorFS offers in-place writes exactly when the inner file does.
func TestErrorFSInPlaceFollowsInner(t *testing.T) {
	mem := NewMem()
	mustOK(t, mem.MkdirAll("d", 0o755))
	f, err := NewErrorFS(mem, nil).Create("d/f")
	mustOK(t, err)
	if _, ok := f.(InPlaceFile); !ok {
		t.Error("a MemFS file through ErrorFS cannot be written in place")
	}
	f, err = NewErrorFS(appendOnlyFS{mem}, nil).Create("d/g")
	mustOK(t, err)
	if _, ok := f.(InPlaceFile); ok {
		t.Error("an append-only file through ErrorFS claims in-place writes")
	}
}

// appendOnlyFS hides the in-place methods of its files.
type appendOnlyFS struct{ FS }

func (fs appendOnlyFS) Create(name string) (File, error) {
	f, err := fs.FS.Create(name)
	return struct{ File }{f}, err
}
