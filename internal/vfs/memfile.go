package vfs

import (
	"io"
	"maps"
	"os"
	"syscall"
)

// memFile is an open MemFS file or directory. Its fields after name are
// guarded by fs.mu.
type memFile struct {
	fs    *MemFS
	n     *memNode
	name  string
	write bool
	// pos is where the next Read starts; writes leave it alone.
	pos    int64
	closed bool
}

// check reports why f cannot do op; the caller holds fs.mu.
func (f *memFile) check(op string, wantFile bool) error {
	switch {
	case f.closed:
		return pathErr(op, f.name, os.ErrClosed)
	case wantFile && f.n.dir:
		return pathErr(op, f.name, syscall.EISDIR)
	}
	return nil
}

func (f *memFile) Read(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("read", true); err != nil {
		return 0, err
	}
	if f.pos >= f.n.data.size {
		return 0, io.EOF
	}
	n := f.n.data.readAt(p, f.pos)
	f.pos += int64(n)
	return n, nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("read", true); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathErr("read", f.name, syscall.EINVAL)
	}
	if off >= f.n.data.size {
		return 0, io.EOF
	}
	n := f.n.data.readAt(p, off)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Write appends p to the file.
func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.checkWrite("write"); err != nil {
		return 0, err
	}
	f.n.data.writeAt(p, f.n.data.size, &f.n.synced)
	return len(p), nil
}

// WriteAt writes p at off, over what the file holds there and past its end.
func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.checkWrite("write"); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathErr("write", f.name, syscall.EINVAL)
	}
	f.n.data.writeAt(p, off, &f.n.synced)
	return len(p), nil
}

// Allocate zero-extends the file to size bytes. The new bytes take no
// memory until written.
func (f *memFile) Allocate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.checkWrite("allocate"); err != nil {
		return err
	}
	if size > f.n.data.size {
		f.n.data.truncate(size, &f.n.synced)
	}
	return nil
}

// checkWrite reports why f cannot be written; the caller holds fs.mu.
func (f *memFile) checkWrite(op string) error {
	if err := f.check(op, true); err != nil {
		return err
	}
	if !f.write {
		return pathErr(op, f.name, os.ErrPermission)
	}
	return nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("close", false); err != nil {
		return err
	}
	f.closed = true
	return nil
}

// Sync makes the file's contents, or the directory's entries, durable. The
// hooks run without fs.mu held.
func (f *memFile) Sync() error {
	hooks, err := f.syncHooks()
	if err != nil {
		return err
	}
	if hooks.BeforeSync != nil {
		hooks.BeforeSync(f.name)
	}
	if err := f.syncLocked(); err != nil {
		return err
	}
	if hooks.AfterSync != nil {
		hooks.AfterSync(f.name)
	}
	return nil
}

// SyncData is Sync: a MemFS has no metadata to skip.
func (f *memFile) SyncData() error { return f.Sync() }

func (f *memFile) syncHooks() (Hooks, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return f.fs.hooks, f.check("sync", false)
}

func (f *memFile) syncLocked() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("sync", false); err != nil {
		return err
	}
	if f.n.dir {
		f.n.durable = maps.Clone(f.n.live)
	} else {
		f.n.synced, f.n.reset = f.n.data.snapshot(), false
	}
	return nil
}

func (f *memFile) Stat() (os.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("stat", false); err != nil {
		return nil, err
	}
	return f.n.info(f.name), nil
}

// Truncate cuts or zero-extends the file. The change is durable once the
// file is synced.
func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.checkWrite("truncate"); err != nil {
		return err
	}
	if size < 0 {
		return pathErr("truncate", f.name, syscall.EINVAL)
	}
	if size < f.n.data.size {
		f.n.reset = true
	}
	f.n.data.truncate(size, &f.n.synced)
	return nil
}
