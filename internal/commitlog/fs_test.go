package commitlog

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tabuladb/tabula/internal/vfs"
)

// appendFS is a minimal vfs.FS over the os package whose files cannot be
// written in place, so the log appends and syncs them whole.
type appendFS struct{}

// fsKinds are the file systems the log's main tests run on: one whose
// files it writes in place, and one whose files it appends to.
var fsKinds = []struct {
	name string
	fs   vfs.FS
}{{"in-place", vfs.NewOS()}, {"append", appendFS{}}}

func forEachFS(t *testing.T, run func(t *testing.T, fs vfs.FS)) {
	for _, k := range fsKinds {
		t.Run(k.name, func(t *testing.T) { run(t, k.fs) })
	}
}

func (appendFS) Create(name string) (vfs.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
}
func (appendFS) Open(name string) (vfs.File, error) { return os.Open(name) }
func (appendFS) OpenReadWrite(name string) (vfs.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_APPEND, 0)
}
func (appendFS) OpenDir(name string) (vfs.File, error)       { return os.Open(name) }
func (appendFS) Remove(name string) error                    { return os.Remove(name) }
func (appendFS) RemoveAll(name string) error                 { return os.RemoveAll(name) }
func (appendFS) Rename(oldname, newname string) error        { return os.Rename(oldname, newname) }
func (appendFS) MkdirAll(dir string, perm os.FileMode) error { return os.MkdirAll(dir, perm) }
func (appendFS) Stat(name string) (os.FileInfo, error)       { return os.Stat(name) }
func (appendFS) Lock(name string) (io.Closer, error)         { return os.Create(name) }

func (appendFS) List(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

var errInjected = errors.New("injected fault")

// faultFS wraps an FS and fails the failSync-th Sync of a file it created
// (counting from 1), and every Create after failCreate is set.
type faultFS struct {
	vfs.FS
	mu         sync.Mutex
	syncs      int
	failSync   int
	failCreate atomic.Bool
}

func (fs *faultFS) Create(name string) (vfs.File, error) {
	if fs.failCreate.Load() {
		return nil, errInjected
	}
	f, err := fs.FS.Create(name)
	if err != nil {
		return nil, err
	}
	ff := &faultFile{File: f, fs: fs}
	if in, ok := f.(vfs.InPlaceFile); ok {
		return &faultInPlaceFile{faultFile: ff, in: in}, nil
	}
	return ff, nil
}

type faultFile struct {
	vfs.File
	fs *faultFS
}

func (f *faultFile) Sync() error {
	if f.fs.failThisSync() {
		return errInjected
	}
	return f.File.Sync()
}

func (fs *faultFS) failThisSync() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.syncs++
	return fs.syncs == fs.failSync
}

// faultInPlaceFile is a faultFile over a file written in place; SyncData
// counts as a sync.
type faultInPlaceFile struct {
	*faultFile
	in vfs.InPlaceFile
}

func (f *faultInPlaceFile) WriteAt(p []byte, off int64) (int, error) { return f.in.WriteAt(p, off) }
func (f *faultInPlaceFile) Allocate(size int64) error                { return f.in.Allocate(size) }

func (f *faultInPlaceFile) SyncData() error {
	if f.fs.failThisSync() {
		return errInjected
	}
	return f.in.SyncData()
}
