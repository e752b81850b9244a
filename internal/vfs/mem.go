package vfs

import (
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// MemFS is an in-memory FS, safe for concurrent use, that models what
// survives a power cut (see CrashClone).
//
// Durability model: a file's contents become durable when the file is
// synced. A directory entry created, removed or renamed becomes durable when
// its directory is synced (OpenDir + Sync); until then a crash forgets the
// change. Directories made by MkdirAll are durable at once. Relative and
// absolute names address the same tree: "a/b" and "/a/b" are one file.
type MemFS struct {
	mu    sync.Mutex
	root  *memNode
	locks map[string]bool
	hooks Hooks
}

// memNode is an inode: a file or a directory. Renames move the node.
type memNode struct {
	dir bool
	// Files: the live contents and the durable ones, which share the
	// pages data has not changed since the last sync. reset says data was
	// truncated or recreated since then.
	data, synced pages
	reset        bool
	// Directories: the live entries and the entries as of the last sync.
	live, durable map[string]*memNode
}

func newMemDir() *memNode {
	return &memNode{dir: true, live: map[string]*memNode{}, durable: map[string]*memNode{}}
}

// NewMem returns an empty in-memory FS.
func NewMem() *MemFS {
	return &MemFS{root: newMemDir(), locks: map[string]bool{}}
}

// cleanPath maps a name to its canonical absolute form.
func cleanPath(name string) string { return path.Clean("/" + name) }

func splitPath(name string) []string {
	p := cleanPath(name)
	if p == "/" {
		return nil
	}
	return strings.Split(p[1:], "/")
}

func pathErr(op, name string, err error) error {
	return &os.PathError{Op: op, Path: name, Err: err}
}

// walk follows the live namespace. The caller holds fs.mu.
func (fs *MemFS) walk(parts []string) (*memNode, error) {
	n := fs.root
	for _, p := range parts {
		if !n.dir {
			return nil, syscall.ENOTDIR
		}
		if n = n.live[p]; n == nil {
			return nil, os.ErrNotExist
		}
	}
	return n, nil
}

func (fs *MemFS) lookup(op, name string) (*memNode, error) {
	n, err := fs.walk(splitPath(name))
	if err != nil {
		return nil, pathErr(op, name, err)
	}
	return n, nil
}

// parent returns the directory holding name and name's last element.
func (fs *MemFS) parent(op, name string) (*memNode, string, error) {
	parts := splitPath(name)
	if len(parts) == 0 {
		return nil, "", pathErr(op, name, syscall.EINVAL)
	}
	dir, err := fs.walk(parts[:len(parts)-1])
	if err == nil && !dir.dir {
		err = syscall.ENOTDIR
	}
	if err != nil {
		return nil, "", pathErr(op, name, err)
	}
	return dir, parts[len(parts)-1], nil
}

// Create creates name, or truncates it if it exists. The truncation, like
// any change of contents, is durable once the file is synced.
func (fs *MemFS) Create(name string) (File, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n, err := fs.createLocked("create", name)
	if err != nil {
		return nil, err
	}
	n.data, n.reset = pages{}, true
	return &memFile{fs: fs, n: n, name: name, write: true}, nil
}

// createLocked returns the file at name, creating it if missing.
func (fs *MemFS) createLocked(op, name string) (*memNode, error) {
	dir, base, err := fs.parent(op, name)
	if err != nil {
		return nil, err
	}
	n := dir.live[base]
	if n == nil {
		n = &memNode{}
		dir.live[base] = n
	}
	if n.dir {
		return nil, pathErr(op, name, syscall.EISDIR)
	}
	return n, nil
}

// Open opens an existing file for reading.
func (fs *MemFS) Open(name string) (File, error) { return fs.open("open", name, false) }

// OpenReadWrite opens an existing file for reading and appending.
func (fs *MemFS) OpenReadWrite(name string) (File, error) { return fs.open("open", name, true) }

func (fs *MemFS) open(op, name string, write bool) (File, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n, err := fs.lookup(op, name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return nil, pathErr(op, name, syscall.EISDIR)
	}
	// Reads start at 0; each Write goes to the end and, as on the OS,
	// leaves the read position alone.
	return &memFile{fs: fs, n: n, name: name, write: write}, nil
}

// OpenDir opens a directory; syncing it makes its entries durable.
func (fs *MemFS) OpenDir(name string) (File, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n, err := fs.lookup("opendir", name)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, pathErr("opendir", name, syscall.ENOTDIR)
	}
	return &memFile{fs: fs, n: n, name: name}, nil
}

// Remove deletes a file or an empty directory.
func (fs *MemFS) Remove(name string) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	dir, base, err := fs.parent("remove", name)
	if err != nil {
		return err
	}
	n := dir.live[base]
	if n == nil {
		return pathErr("remove", name, os.ErrNotExist)
	}
	if n.dir && len(n.live) > 0 {
		return pathErr("remove", name, syscall.ENOTEMPTY)
	}
	delete(dir.live, base)
	return nil
}

// RemoveAll deletes name and everything below it; a missing name is not an
// error.
func (fs *MemFS) RemoveAll(name string) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(splitPath(name)) == 0 {
		clear(fs.root.live)
		return nil
	}
	dir, base, err := fs.parent("removeall", name)
	if err != nil {
		return nil
	}
	delete(dir.live, base)
	return nil
}

// Rename moves oldname to newname, replacing a file (or empty directory)
// there.
func (fs *MemFS) Rename(oldname, newname string) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	sdir, sbase, err := fs.parent("rename", oldname)
	if err != nil {
		return err
	}
	ddir, dbase, err := fs.parent("rename", newname)
	if err != nil {
		return err
	}
	n := sdir.live[sbase]
	if n == nil {
		return pathErr("rename", oldname, os.ErrNotExist)
	}
	old := ddir.live[dbase]
	if err := checkRename(n, old, cleanPath(oldname), cleanPath(newname)); err != nil {
		return pathErr("rename", newname, err)
	}
	if old == n {
		// Both names are one file (a crash clone can leave one file under
		// two names); as in POSIX, renaming does nothing.
		return nil
	}
	delete(sdir.live, sbase)
	ddir.live[dbase] = n
	return nil
}

// checkRename reports why n at src cannot replace old at dst, if it cannot.
func checkRename(n, old *memNode, src, dst string) error {
	switch {
	case n.dir && strings.HasPrefix(dst, src+"/"):
		return syscall.EINVAL
	case old == nil || old == n:
		return nil
	case old.dir && !n.dir:
		return syscall.EISDIR
	case !old.dir && n.dir:
		return syscall.ENOTDIR
	case old.dir && len(old.live) > 0:
		return syscall.ENOTEMPTY
	}
	return nil
}

// MkdirAll creates dir and its parents. New directories are durable at once:
// their entries in their parents need no directory sync.
func (fs *MemFS) MkdirAll(dir string, perm os.FileMode) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.root
	for _, p := range splitPath(dir) {
		child := n.live[p]
		if child == nil {
			child = newMemDir()
			n.live[p] = child
			n.durable[p] = child
		}
		if !child.dir {
			return pathErr("mkdir", dir, syscall.ENOTDIR)
		}
		n = child
	}
	return nil
}

// List returns the sorted names of dir's entries.
func (fs *MemFS) List(dir string) ([]string, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n, err := fs.lookup("readdir", dir)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, pathErr("readdir", dir, syscall.ENOTDIR)
	}
	return slices.Sorted(maps.Keys(n.live)), nil
}

// Stat describes name.
func (fs *MemFS) Stat(name string) (os.FileInfo, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n, err := fs.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return n.info(name), nil
}

// Lock takes the lock at name, creating the file if needed. It fails with
// ErrLocked while the lock is held; closing the returned Closer releases it.
func (fs *MemFS) Lock(name string) (io.Closer, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	key := cleanPath(name)
	if fs.locks[key] {
		return nil, pathErr("lock", name, ErrLocked)
	}
	if _, err := fs.createLocked("lock", name); err != nil {
		return nil, err
	}
	fs.locks[key] = true
	return &memLock{fs: fs, key: key}, nil
}

type memLock struct {
	fs  *MemFS
	key string
	// released is guarded by fs.mu.
	released bool
}

func (l *memLock) Close() error {
	l.fs.mu.Lock()
	defer l.fs.mu.Unlock()
	if l.released {
		return pathErr("unlock", l.key, os.ErrClosed)
	}
	l.released = true
	delete(l.fs.locks, l.key)
	return nil
}
