package vfs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// NewOS returns the FS of the operating system. Names are used as given.
// Files opened for writing append: each Write goes to the end of the file.
func NewOS() FS { return osFS{} }

type osFS struct{}

func (osFS) Create(name string) (File, error) {
	return openOS(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
}

func (osFS) Open(name string) (File, error) { return openOS(name, os.O_RDONLY, 0) }

func (osFS) OpenReadWrite(name string) (File, error) {
	return openOS(name, os.O_RDWR, 0)
}

func (osFS) OpenDir(name string) (File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.IsDir() {
		err = &os.PathError{Op: "opendir", Path: name, Err: syscall.ENOTDIR}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &osFile{f: f}, nil
}

func (osFS) Remove(name string) error                    { return os.Remove(name) }
func (osFS) RemoveAll(name string) error                 { return os.RemoveAll(name) }
func (osFS) Rename(oldname, newname string) error        { return os.Rename(oldname, newname) }
func (osFS) MkdirAll(dir string, perm os.FileMode) error { return os.MkdirAll(dir, perm) }
func (osFS) Stat(name string) (os.FileInfo, error)       { return os.Stat(name) }

// List returns the directory's entry names; os.ReadDir sorts them.
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

func openOS(name string, flag int, perm os.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	of, err := newOSFile(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return of, nil
}

// osLocks holds the absolute paths of the lock files this process holds.
// It is process-wide on purpose: the property it tracks (what this process
// has locked) is itself process-wide, and two FS values must see each other's
// locks just as two processes do.
var osLocks = struct {
	sync.Mutex
	held map[string]bool
}{held: map[string]bool{}}

func (osFS) Lock(name string) (io.Closer, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	osLocks.Lock()
	defer osLocks.Unlock()
	if osLocks.held[abs] {
		return nil, fmt.Errorf("vfs: lock %s: %w", name, ErrLocked)
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("vfs: lock %s: %w", name, err)
	}
	osLocks.held[abs] = true
	return &osLock{f: f, abs: abs}, nil
}

// osLock is a held lock; closing the file releases the flock.
type osLock struct {
	once sync.Once
	f    *os.File
	abs  string
}

func (l *osLock) Close() error {
	err := os.ErrClosed
	l.once.Do(func() {
		// Release the flock before the name, so a Lock that sees the name
		// free does not then find the flock still held.
		osLocks.Lock()
		defer osLocks.Unlock()
		err = l.f.Close()
		delete(osLocks.held, l.abs)
	})
	return err
}
