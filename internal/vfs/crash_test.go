package vfs

import (
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

var allModes = []UnsyncedMode{DropUnsynced, KeepSomeUnsynced, KeepAllUnsynced}

func crash(fs *MemFS, mode UnsyncedMode, seed uint64) *MemFS {
	return fs.CrashClone(CrashCloneOptions{UnsyncedData: mode, Rand: rand.New(rand.NewPCG(seed, 0))})
}

// newSyncedFile returns a MemFS with db/f holding synced, its entry synced,
// and f open with unsynced appended after it.
func newSyncedFile(t *testing.T, synced, unsynced string) (*MemFS, File) {
	t.Helper()
	fs := NewMem()
	mustOK(t, fs.MkdirAll("db", 0o755))
	f, err := fs.Create("db/f")
	mustOK(t, err)
	mustWrite(t, f, synced)
	mustOK(t, f.Sync())
	syncDir(t, fs, "db")
	mustWrite(t, f, unsynced)
	return fs, f
}

func syncDir(t *testing.T, fs FS, dir string) {
	t.Helper()
	d, err := fs.OpenDir(dir)
	mustOK(t, err)
	mustOK(t, d.Sync())
	mustOK(t, d.Close())
}

func exists(fs FS, name string) bool {
	_, err := fs.Stat(name)
	return err == nil
}

func TestCrashSyncedSurvives(t *testing.T) {
	fs, _ := newSyncedFile(t, "durable", "")
	for _, mode := range allModes {
		t.Run(mode.String(), func(t *testing.T) {
			checkContents(t, crash(fs, mode, 1), "db/f", "durable")
		})
	}
}

func TestCrashUnsyncedData(t *testing.T) {
	fs, _ := newSyncedFile(t, "abc", "defgh")
	checkContents(t, crash(fs, DropUnsynced, 1), "db/f", "abc")
	checkContents(t, crash(fs, KeepAllUnsynced, 1), "db/f", "abcdefgh")
	// KeepSomeUnsynced keeps the synced bytes and a random-length prefix of
	// the rest; over many seeds every length turns up.
	lengths := map[int]bool{}
	for seed := range uint64(200) {
		got := readAll(t, crash(fs, KeepSomeUnsynced, seed), "db/f")
		if !strings.HasPrefix("abcdefgh", got) || len(got) < 3 {
			t.Fatalf("seed %d: kept %q, want a prefix of %q at least %q long", seed, got, "abcdefgh", "abc")
		}
		lengths[len(got)] = true
	}
	if len(lengths) != 6 {
		t.Fatalf("kept lengths %v, want all of 3..8", lengths)
	}
}

func TestCrashKeepSomeIsSeeded(t *testing.T) {
	fs, _ := newSyncedFile(t, "", strings.Repeat("x", 1000))
	for seed := range uint64(10) {
		a := readAll(t, crash(fs, KeepSomeUnsynced, seed), "db/f")
		b := readAll(t, crash(fs, KeepSomeUnsynced, seed), "db/f")
		if a != b {
			t.Fatalf("seed %d: clones kept %d and %d bytes", seed, len(a), len(b))
		}
	}
}

// A file rewritten other than by appending survives KeepSomeUnsynced whole,
// either as synced or as live.
func TestCrashTruncatedFile(t *testing.T) {
	fs, f := newSyncedFile(t, "abcdef", "")
	mustOK(t, f.Truncate(2))
	mustWrite(t, f, "XY")
	checkContents(t, crash(fs, DropUnsynced, 1), "db/f", "abcdef")
	checkContents(t, crash(fs, KeepAllUnsynced, 1), "db/f", "abXY")
	seen := map[string]bool{}
	for seed := range uint64(50) {
		seen[readAll(t, crash(fs, KeepSomeUnsynced, seed), "db/f")] = true
	}
	if len(seen) != 2 || !seen["abcdef"] || !seen["abXY"] {
		t.Fatalf("KeepSomeUnsynced kept %v, want abcdef and abXY", seen)
	}
}

// Bytes written in place over synced zeros, as a log does in a
// preallocated file, survive a crash as a prefix of the writes laid over
// the zeros.
func TestCrashInPlaceWrites(t *testing.T) {
	fs, f := newSyncedFile(t, "hdr", "")
	in := f.(InPlaceFile)
	mustOK(t, in.Allocate(10))
	mustOK(t, in.SyncData())
	if _, err := in.WriteAt([]byte("abcd"), 3); err != nil {
		t.Fatal(err)
	}
	mustOK(t, in.SyncData())
	if _, err := in.WriteAt([]byte("ef"), 7); err != nil {
		t.Fatal(err)
	}
	checkContents(t, crash(fs, DropUnsynced, 1), "db/f", "hdrabcd\x00\x00\x00")
	checkContents(t, crash(fs, KeepAllUnsynced, 1), "db/f", "hdrabcdef\x00")
	seen := map[string]bool{}
	for seed := range uint64(100) {
		seen[readAll(t, crash(fs, KeepSomeUnsynced, seed), "db/f")] = true
	}
	want := []string{"hdrabcd\x00\x00\x00", "hdrabcde\x00\x00", "hdrabcdef\x00"}
	if len(seen) != len(want) {
		t.Fatalf("KeepSomeUnsynced kept %q, want %q", slices.Sorted(maps.Keys(seen)), want)
	}
	for _, w := range want {
		if !seen[w] {
			t.Fatalf("KeepSomeUnsynced kept %q, want %q", slices.Sorted(maps.Keys(seen)), want)
		}
	}
}

// Directory entries are durable once their directory is synced; all
// entries are kept by KeepAllUnsynced, which models everything having
// reached the disk.
func TestCrashDirectoryEntries(t *testing.T) {
	fs, _ := newSyncedFile(t, "old", "")
	mustOK(t, fs.MkdirAll("db/made", 0o755)) // durable at once
	writeFile(t, fs, "db/new", "synced contents, unsynced entry")
	mustOK(t, fs.Rename("db/f", "db/g"))
	for _, mode := range []UnsyncedMode{DropUnsynced, KeepSomeUnsynced} {
		c := crash(fs, mode, 1)
		checkList(t, c, "db", "f", "made")
		checkContents(t, c, "db/f", "old")
	}
	c := crash(fs, KeepAllUnsynced, 1)
	checkList(t, c, "db", "g", "made", "new")

	syncDir(t, fs, "db")
	c = crash(fs, DropUnsynced, 1)
	checkList(t, c, "db", "g", "made", "new")
	checkContents(t, c, "db/new", "synced contents, unsynced entry")

	mustOK(t, fs.Remove("db/new"))
	if !exists(crash(fs, DropUnsynced, 1), "db/new") {
		t.Fatal("a removal survived without a directory sync")
	}
}

// A rename between two directories of which only the target is synced
// leaves the file under both names, and they stay one file.
func TestCrashRenameAcrossDirs(t *testing.T) {
	fs := NewMem()
	mustOK(t, fs.MkdirAll("a", 0o755))
	mustOK(t, fs.MkdirAll("b", 0o755))
	writeFile(t, fs, "a/f", "x")
	syncDir(t, fs, "a")
	mustOK(t, fs.Rename("a/f", "b/f"))
	syncDir(t, fs, "b")
	c := crash(fs, DropUnsynced, 1)
	f, err := c.OpenReadWrite("a/f")
	mustOK(t, err)
	mustWrite(t, f, "y")
	mustOK(t, f.Close())
	checkContents(t, c, "b/f", "xy")
	// Renaming one name onto the other does nothing.
	mustOK(t, c.Rename("a/f", "b/f"))
	checkList(t, c, "a", "f")
}

// A clone is independent of its source, and everything in it is synced.
func TestCrashCloneIndependent(t *testing.T) {
	fs, f := newSyncedFile(t, "abc", "def")
	c := crash(fs, KeepAllUnsynced, 1)
	mustWrite(t, f, "ghi")
	writeFile(t, c, "db/other", "o")
	checkContents(t, c, "db/f", "abcdef")
	if exists(fs, "db/other") {
		t.Fatal("a file made in the clone shows in the source")
	}
	checkContents(t, crash(c, DropUnsynced, 1), "db/f", "abcdef")
	// Locks are not carried over.
	l, err := fs.Lock("db/LOCK")
	mustOK(t, err)
	defer l.Close()
	syncDir(t, fs, "db")
	l2, err := crash(fs, DropUnsynced, 1).Lock("db/LOCK")
	mustOK(t, err)
	mustOK(t, l2.Close())
}

// Hooks run around every Sync, without the MemFS lock, so they can take
// crash clones that show the state just before and just after the sync.
func TestSyncHooks(t *testing.T) {
	fs, f := newSyncedFile(t, "a", "b")
	var calls []string
	fs.SetHooks(Hooks{
		BeforeSync: func(name string) {
			calls = append(calls, "before "+name+" "+readAll(t, crash(fs, DropUnsynced, 1), "db/f"))
		},
		AfterSync: func(name string) {
			calls = append(calls, "after "+name+" "+readAll(t, crash(fs, DropUnsynced, 1), "db/f"))
		},
	})
	mustOK(t, f.Sync())
	syncDir(t, fs, "db")
	want := []string{"before db/f a", "after db/f ab", "before db ab", "after db ab"}
	if !slices.Equal(calls, want) {
		t.Fatalf("hook calls %q, want %q", calls, want)
	}
	fs.SetHooks(Hooks{})
	mustOK(t, f.Sync())
	if len(calls) != len(want) {
		t.Fatal("hooks ran after being removed")
	}
	mustOK(t, f.Close())
	fs.SetHooks(Hooks{BeforeSync: func(string) { t.Fatal("hook ran for a failing Sync") }})
	wantIs(t, f.Sync(), os.ErrClosed)
}

func readAll(t *testing.T, fs FS, name string) string {
	t.Helper()
	f, err := fs.Open(name)
	mustOK(t, err)
	defer f.Close()
	b, err := io.ReadAll(f)
	mustOK(t, err)
	return string(b)
}
