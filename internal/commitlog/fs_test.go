package commitlog

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/tabuladb/tabula/internal/vfs"
)

// osFS is a minimal vfs.FS over the os package for these tests.
type osFS struct{}

func (osFS) Create(name string) (vfs.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
}
func (osFS) Open(name string) (vfs.File, error) { return os.Open(name) }
func (osFS) OpenReadWrite(name string) (vfs.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_APPEND, 0)
}
func (osFS) OpenDir(name string) (vfs.File, error)       { return os.Open(name) }
func (osFS) Remove(name string) error                    { return os.Remove(name) }
func (osFS) RemoveAll(name string) error                 { return os.RemoveAll(name) }
func (osFS) Rename(oldname, newname string) error        { return os.Rename(oldname, newname) }
func (osFS) MkdirAll(dir string, perm os.FileMode) error { return os.MkdirAll(dir, perm) }
func (osFS) Stat(name string) (os.FileInfo, error)       { return os.Stat(name) }
func (osFS) Lock(name string) (io.Closer, error)         { return os.Create(name) }

func (osFS) List(dir string) ([]string, error) {
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
	return &faultFile{File: f, fs: fs}, nil
}

type faultFile struct {
	vfs.File
	fs *faultFS
}

func (f *faultFile) Sync() error {
	f.fs.mu.Lock()
	f.fs.syncs++
	fail := f.fs.syncs == f.fs.failSync
	f.fs.mu.Unlock()
	if fail {
		return errInjected
	}
	return f.File.Sync()
}
