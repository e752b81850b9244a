package vfs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path"
	"slices"
	"testing"
)

// fsCase is one check of FS semantics, run in dir, an existing empty
// directory of fs.
type fsCase struct {
	name string
	run  func(t *testing.T, fs FS, dir string)
}

// TestMemFS, TestOSFS and TestErrorFSPassThrough run one suite, so MemFS is
// held to what the operating system does.
func TestMemFS(t *testing.T) {
	runFSCases(t, func(t *testing.T) (FS, string) {
		fs := NewMem()
		mustOK(t, fs.MkdirAll("/db", 0o755))
		return fs, "/db"
	})
}

func TestOSFS(t *testing.T) {
	runFSCases(t, func(t *testing.T) (FS, string) { return NewOS(), t.TempDir() })
}

func TestErrorFSPassThrough(t *testing.T) {
	runFSCases(t, func(t *testing.T) (FS, string) {
		fs := NewMem()
		mustOK(t, fs.MkdirAll("db", 0o755))
		return NewErrorFS(fs, nil), "db"
	})
}

func runFSCases(t *testing.T, newFS func(t *testing.T) (FS, string)) {
	for _, c := range fsCases {
		t.Run(c.name, func(t *testing.T) {
			fs, dir := newFS(t)
			c.run(t, fs, dir)
		})
	}
}

var fsCases = []fsCase{
	{"create-write-read", func(t *testing.T, fs FS, dir string) {
		name := path.Join(dir, "f")
		writeFile(t, fs, name, "hello", " world")
		checkContents(t, fs, name, "hello world")
		fi, err := fs.Stat(name)
		mustOK(t, err)
		if fi.Name() != "f" || fi.Size() != 11 || fi.IsDir() {
			t.Fatalf("stat = %q size %d dir %v", fi.Name(), fi.Size(), fi.IsDir())
		}
	}},
	{"create-reads-back", func(t *testing.T, fs FS, dir string) {
		f, err := fs.Create(path.Join(dir, "f"))
		mustOK(t, err)
		defer f.Close()
		mustWrite(t, f, "abc")
		p := make([]byte, 2)
		n, err := f.ReadAt(p, 1)
		if n != 2 || err != nil || string(p) != "bc" {
			t.Fatalf("ReadAt = %d %v %q", n, err, p)
		}
	}},
	{"create-truncates", func(t *testing.T, fs FS, dir string) {
		name := path.Join(dir, "f")
		writeFile(t, fs, name, "long contents")
		writeFile(t, fs, name, "new")
		checkContents(t, fs, name, "new")
	}},
	{"read-at", func(t *testing.T, fs FS, dir string) {
		name := path.Join(dir, "f")
		writeFile(t, fs, name, "0123456789")
		f, err := fs.Open(name)
		mustOK(t, err)
		defer f.Close()
		p := make([]byte, 4)
		if n, err := f.ReadAt(p, 3); n != 4 || err != nil || string(p) != "3456" {
			t.Fatalf("ReadAt(3) = %d %v %q", n, err, p)
		}
		if n, err := f.ReadAt(p, 8); n != 2 || err != io.EOF || string(p[:n]) != "89" {
			t.Fatalf("ReadAt(8) = %d %v %q, want a short read and io.EOF", n, err, p[:n])
		}
		if n, err := f.ReadAt(p, 10); n != 0 || err != io.EOF {
			t.Fatalf("ReadAt(10) = %d %v, want io.EOF", n, err)
		}
		// ReadAt does not move the Read position.
		checkRead(t, f, "0123456789")
	}},
	{"open-missing", func(t *testing.T, fs FS, dir string) {
		_, err := fs.Open(path.Join(dir, "nope"))
		wantIs(t, err, os.ErrNotExist)
		_, err = fs.OpenReadWrite(path.Join(dir, "nope"))
		wantIs(t, err, os.ErrNotExist)
		_, err = fs.Stat(path.Join(dir, "nope"))
		wantIs(t, err, os.ErrNotExist)
	}},
	{"open-read-write", func(t *testing.T, fs FS, dir string) {
		name := path.Join(dir, "f")
		writeFile(t, fs, name, "abc")
		f, err := fs.OpenReadWrite(name)
		mustOK(t, err)
		// Reads start at the beginning; writes append.
		checkRead(t, f, "abc")
		mustWrite(t, f, "def")
		mustOK(t, f.Close())
		checkContents(t, fs, name, "abcdef")
	}},
	{"truncate", func(t *testing.T, fs FS, dir string) {
		name := path.Join(dir, "f")
		writeFile(t, fs, name, "abcdef")
		f, err := fs.OpenReadWrite(name)
		mustOK(t, err)
		mustOK(t, f.Truncate(2))
		mustWrite(t, f, "X")
		mustOK(t, f.Truncate(5))
		mustWrite(t, f, "Y")
		mustOK(t, f.Close())
		checkContents(t, fs, name, "abX\x00\x00Y")
	}},
	{"in-place", func(t *testing.T, fs FS, dir string) {
		name := path.Join(dir, "f")
		f, err := fs.Create(name)
		mustOK(t, err)
		in := f.(InPlaceFile)
		mustWrite(t, f, "abc")
		mustOK(t, in.Allocate(8))
		mustOK(t, in.Allocate(4)) // never shrinks
		if n, err := in.WriteAt([]byte("XY"), 4); n != 2 || err != nil {
			t.Fatalf("WriteAt = %d, %v", n, err)
		}
		mustWrite(t, f, "Z") // appends after the allocated zeros
		if n, err := in.WriteAt(nil, 20); n != 0 || err != nil {
			t.Fatalf("empty WriteAt = %d, %v", n, err)
		}
		if n, err := in.WriteAt([]byte("!"), 10); n != 1 || err != nil {
			t.Fatalf("WriteAt past the end = %d, %v", n, err)
		}
		mustOK(t, in.SyncData())
		fi, err := f.Stat()
		mustOK(t, err)
		if fi.Size() != 11 {
			t.Fatalf("size %d, want 11", fi.Size())
		}
		mustOK(t, f.Close())
		checkContents(t, fs, name, "abc\x00XY\x00\x00Z\x00!")
	}},
	{"write-leaves-read-position", func(t *testing.T, fs FS, dir string) {
		f, err := fs.Create(path.Join(dir, "f"))
		mustOK(t, err)
		defer f.Close()
		mustWrite(t, f, "abc")
		checkRead(t, f, "abc")
	}},
	{"large-file", func(t *testing.T, fs FS, dir string) {
		// Writes and reads that cross MemFS page boundaries.
		name := path.Join(dir, "f")
		f, err := fs.Create(name)
		mustOK(t, err)
		want := make([]byte, 0, 300<<10)
		for i := 0; len(want) < 300<<10; i++ {
			chunk := bytes.Repeat([]byte{byte(i)}, 1000+i*37)
			mustWrite(t, f, string(chunk))
			want = append(want, chunk...)
		}
		mustOK(t, f.Truncate(int64(len(want)-5000)))
		want = want[:len(want)-5000]
		mustOK(t, f.Close())
		f, err = fs.Open(name)
		mustOK(t, err)
		defer f.Close()
		for _, off := range []int{0, 1, 65535, 65536, 100000, len(want) - 70000} {
			p := make([]byte, 70000)
			n, err := f.ReadAt(p, int64(off))
			if n != min(len(p), len(want)-off) || !bytes.Equal(p[:n], want[off:off+n]) {
				t.Fatalf("ReadAt(%d) = %d, %v: wrong bytes", off, n, err)
			}
		}
		checkRead(t, f, string(want))
	}},
	{"rename-replaces", func(t *testing.T, fs FS, dir string) {
		a, b := path.Join(dir, "a"), path.Join(dir, "b")
		writeFile(t, fs, a, "A")
		writeFile(t, fs, b, "B")
		mustOK(t, fs.Rename(a, b))
		checkContents(t, fs, b, "A")
		_, err := fs.Stat(a)
		wantIs(t, err, os.ErrNotExist)
		wantIs(t, fs.Rename(a, b), os.ErrNotExist)
		checkList(t, fs, dir, "b")
	}},
	{"rename-dir", func(t *testing.T, fs FS, dir string) {
		mustOK(t, fs.MkdirAll(path.Join(dir, "x/y"), 0o755))
		writeFile(t, fs, path.Join(dir, "x/y/f"), "F")
		mustOK(t, fs.Rename(path.Join(dir, "x"), path.Join(dir, "z")))
		checkContents(t, fs, path.Join(dir, "z/y/f"), "F")
		checkList(t, fs, dir, "z")
		if err := fs.Rename(path.Join(dir, "z"), path.Join(dir, "z/y/in")); err == nil {
			t.Fatal("renaming a directory into itself succeeded")
		}
	}},
	{"remove", func(t *testing.T, fs FS, dir string) {
		f, d := path.Join(dir, "f"), path.Join(dir, "d")
		writeFile(t, fs, f, "x")
		mustOK(t, fs.MkdirAll(d, 0o755))
		writeFile(t, fs, path.Join(d, "g"), "y")
		mustOK(t, fs.Remove(f))
		wantIs(t, fs.Remove(f), os.ErrNotExist)
		if err := fs.Remove(d); err == nil {
			t.Fatal("removing a non-empty directory succeeded")
		}
		mustOK(t, fs.Remove(path.Join(d, "g")))
		mustOK(t, fs.Remove(d))
		checkList(t, fs, dir)
	}},
	{"remove-all", func(t *testing.T, fs FS, dir string) {
		mustOK(t, fs.MkdirAll(path.Join(dir, "t/u/v"), 0o755))
		writeFile(t, fs, path.Join(dir, "t/u/f"), "x")
		writeFile(t, fs, path.Join(dir, "keep"), "k")
		mustOK(t, fs.RemoveAll(path.Join(dir, "t")))
		mustOK(t, fs.RemoveAll(path.Join(dir, "t")))
		mustOK(t, fs.RemoveAll(path.Join(dir, "missing/deeper")))
		checkList(t, fs, dir, "keep")
	}},
	{"list-sorted", func(t *testing.T, fs FS, dir string) {
		for _, n := range []string{"c", "a", "B", "b"} {
			writeFile(t, fs, path.Join(dir, n), n)
		}
		mustOK(t, fs.MkdirAll(path.Join(dir, "d"), 0o755))
		checkList(t, fs, dir, "B", "a", "b", "c", "d")
		_, err := fs.List(path.Join(dir, "a"))
		if err == nil {
			t.Fatal("listing a file succeeded")
		}
		_, err = fs.List(path.Join(dir, "nope"))
		wantIs(t, err, os.ErrNotExist)
	}},
	{"mkdir-all", func(t *testing.T, fs FS, dir string) {
		p := path.Join(dir, "a/b/c")
		mustOK(t, fs.MkdirAll(p, 0o755))
		mustOK(t, fs.MkdirAll(p, 0o755))
		fi, err := fs.Stat(p)
		mustOK(t, err)
		if !fi.IsDir() || fi.Name() != "c" {
			t.Fatalf("stat = %q dir %v", fi.Name(), fi.IsDir())
		}
		writeFile(t, fs, path.Join(dir, "file"), "x")
		if err := fs.MkdirAll(path.Join(dir, "file/sub"), 0o755); err == nil {
			t.Fatal("MkdirAll below a file succeeded")
		}
		if _, err := fs.Create(path.Join(dir, "no/such/dir/f")); err == nil {
			t.Fatal("Create in a missing directory succeeded")
		}
	}},
	{"open-dir", func(t *testing.T, fs FS, dir string) {
		writeFile(t, fs, path.Join(dir, "f"), "x")
		d, err := fs.OpenDir(dir)
		mustOK(t, err)
		mustOK(t, d.Sync())
		mustOK(t, d.Close())
		if _, err := fs.OpenDir(path.Join(dir, "f")); err == nil {
			t.Fatal("OpenDir of a file succeeded")
		}
	}},
	{"closed-file", func(t *testing.T, fs FS, dir string) {
		f, err := fs.Create(path.Join(dir, "f"))
		mustOK(t, err)
		mustOK(t, f.Close())
		_, err = f.Write([]byte("x"))
		wantIs(t, err, os.ErrClosed)
		_, err = f.Read(make([]byte, 1))
		wantIs(t, err, os.ErrClosed)
		wantIs(t, f.Sync(), os.ErrClosed)
		wantIs(t, f.Close(), os.ErrClosed)
	}},
	{"lock", func(t *testing.T, fs FS, dir string) {
		name := path.Join(dir, "LOCK")
		l, err := fs.Lock(name)
		mustOK(t, err)
		_, err = fs.Lock(name)
		wantIs(t, err, ErrLocked)
		mustOK(t, l.Close())
		wantIs(t, l.Close(), os.ErrClosed)
		l, err = fs.Lock(name)
		mustOK(t, err)
		mustOK(t, l.Close())
	}},
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantIs(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("err = %v, want %v", err, target)
	}
}

func mustWrite(t *testing.T, f File, s string) {
	t.Helper()
	if n, err := f.Write([]byte(s)); n != len(s) || err != nil {
		t.Fatalf("Write(%q) = %d, %v", s, n, err)
	}
}

// writeFile creates name with one Write per chunk, then syncs and closes it.
func writeFile(t *testing.T, fs FS, name string, chunks ...string) {
	t.Helper()
	f, err := fs.Create(name)
	mustOK(t, err)
	for _, c := range chunks {
		mustWrite(t, f, c)
	}
	mustOK(t, f.Sync())
	mustOK(t, f.Close())
}

func checkRead(t *testing.T, f File, want string) {
	t.Helper()
	got, err := io.ReadAll(f)
	mustOK(t, err)
	if !bytes.Equal(got, []byte(want)) {
		t.Fatalf("read %q, want %q", got, want)
	}
}

func checkContents(t *testing.T, fs FS, name, want string) {
	t.Helper()
	f, err := fs.Open(name)
	mustOK(t, err)
	defer f.Close()
	checkRead(t, f, want)
}

func checkList(t *testing.T, fs FS, dir string, want ...string) {
	t.Helper()
	got, err := fs.List(dir)
	mustOK(t, err)
	if !slices.Equal(got, want) && (len(got) > 0 || len(want) > 0) {
		t.Fatalf("List(%s) = %q, want %q", dir, got, want)
	}
}
