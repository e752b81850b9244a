package vfs

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrInjected is the error the injectors of this package return, wrapped in
// an *os.PathError naming the operation and file; test for it with
// errors.Is.
var ErrInjected = errors.New("vfs: injected error")

// Op is a kind of file system operation an Injector may fail.
type Op int

const (
	// OpCreate is FS.Create.
	OpCreate Op = iota
	// OpOpen is FS.Open, FS.OpenReadWrite and FS.OpenDir.
	OpOpen
	// OpWrite is File.Write.
	OpWrite
	// OpSync is File.Sync, of a file or a directory.
	OpSync
	// OpRename is FS.Rename; the name is the old name.
	OpRename
	// OpRemove is FS.Remove and FS.RemoveAll.
	OpRemove
	// OpRead is File.Read and File.ReadAt.
	OpRead
	// OpMkdir is FS.MkdirAll.
	OpMkdir
	// OpList is FS.List.
	OpList
	// OpStat is FS.Stat and File.Stat.
	OpStat
	// OpTruncate is File.Truncate.
	OpTruncate
	// OpLock is FS.Lock.
	OpLock
)

var opNames = [...]string{
	OpCreate:   "create",
	OpOpen:     "open",
	OpWrite:    "write",
	OpSync:     "sync",
	OpRename:   "rename",
	OpRemove:   "remove",
	OpRead:     "read",
	OpMkdir:    "mkdir",
	OpList:     "list",
	OpStat:     "stat",
	OpTruncate: "truncate",
	OpLock:     "lock",
}

// String names the operation.
func (op Op) String() string {
	if op >= 0 && int(op) < len(opNames) {
		return opNames[op]
	}
	return fmt.Sprintf("op(%d)", int(op))
}

// Injector decides which operations of an ErrorFS fail.
type Injector interface {
	// MaybeError is called before op runs on name; a non-nil error fails
	// the operation, which then does nothing.
	MaybeError(op Op, name string) error
}

// Corrupter is an optional interface of an Injector: an ErrorFS passes the
// bytes of every successful Read and ReadAt to it, and it may change them.
type Corrupter interface {
	Corrupt(name string, p []byte)
}

// InjectorFunc adapts a function to Injector.
type InjectorFunc func(op Op, name string) error

// MaybeError calls f.
func (f InjectorFunc) MaybeError(op Op, name string) error { return f(op, name) }

func injected(op Op, name string) error {
	return &os.PathError{Op: op.String(), Path: name, Err: ErrInjected}
}

// FailNth fails the n-th (1-based) operation of kind op, and only that one.
// It is safe for concurrent use.
func FailNth(op Op, n int) Injector { return &countInjector{op: op, n: int64(n), once: true} }

// FailFrom fails the n-th (1-based) operation of kind op and every later
// one. It is safe for concurrent use.
func FailFrom(op Op, n int) Injector { return &countInjector{op: op, n: int64(n)} }

// countInjector counts the operations of one kind and fails from the n-th.
type countInjector struct {
	op    Op
	n     int64
	once  bool
	count atomic.Int64
}

func (c *countInjector) MaybeError(op Op, name string) error {
	if op != c.op {
		return nil
	}
	k := c.count.Add(1)
	if k == c.n || (!c.once && k > c.n) {
		return injected(op, name)
	}
	return nil
}

// Any combines injectors: every one sees every operation, so counters stay
// exact, and the first error among them, in order, fails the operation. It
// forwards Corrupt to those that are Corrupters.
func Any(injs ...Injector) Injector { return anyInjector(injs) }

type anyInjector []Injector

func (a anyInjector) MaybeError(op Op, name string) error {
	var first error
	for _, inj := range a {
		if err := inj.MaybeError(op, name); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (a anyInjector) Corrupt(name string, p []byte) {
	for _, inj := range a {
		if c, ok := inj.(Corrupter); ok {
			c.Corrupt(name, p)
		}
	}
}

// FlipBit returns an Injector that fails nothing but flips one bit, chosen
// with rng, of the bytes each Read or ReadAt returns from a file whose name
// contains nameSubstr. Every such read that returns bytes is corrupted. It
// is safe for concurrent use.
func FlipBit(nameSubstr string, rng *rand.Rand) Injector {
	return &bitFlipper{substr: nameSubstr, rng: rng}
}

type bitFlipper struct {
	substr string
	mu     sync.Mutex
	rng    *rand.Rand
}

func (*bitFlipper) MaybeError(Op, string) error { return nil }

func (b *bitFlipper) Corrupt(name string, p []byte) {
	if len(p) == 0 || !strings.Contains(name, b.substr) {
		return
	}
	b.mu.Lock()
	bit := b.rng.IntN(len(p) * 8)
	b.mu.Unlock()
	p[bit/8] ^= 1 << (bit % 8)
}

var _ FS = (*ErrorFS)(nil)

// ErrorFS wraps an FS and fails, or corrupts, the operations its Injector
// picks. A failed operation does not reach the inner FS: a failed Write
// writes nothing. Close is never failed, so inner files are not leaked.
type ErrorFS struct {
	inner FS
	inj   Injector
}

// NewErrorFS wraps inner. A nil inj fails nothing.
func NewErrorFS(inner FS, inj Injector) *ErrorFS {
	if inj == nil {
		inj = InjectorFunc(func(Op, string) error { return nil })
	}
	return &ErrorFS{inner: inner, inj: inj}
}

// wrap returns f as an errorFile, an errorInPlaceFile if f can be written
// in place, or the error of opening it.
func (fs *ErrorFS) wrap(f File, name string, err error) (File, error) {
	if err != nil {
		return nil, err
	}
	ef := &errorFile{fs: fs, f: f, name: name}
	if in, ok := f.(InPlaceFile); ok {
		return &errorInPlaceFile{errorFile: ef, in: in}, nil
	}
	return ef, nil
}

// Create creates name on the inner FS unless OpCreate fails.
func (fs *ErrorFS) Create(name string) (File, error) {
	if err := fs.inj.MaybeError(OpCreate, name); err != nil {
		return nil, err
	}
	f, err := fs.inner.Create(name)
	return fs.wrap(f, name, err)
}

// Open opens name unless OpOpen fails.
func (fs *ErrorFS) Open(name string) (File, error) {
	if err := fs.inj.MaybeError(OpOpen, name); err != nil {
		return nil, err
	}
	f, err := fs.inner.Open(name)
	return fs.wrap(f, name, err)
}

// OpenReadWrite opens name unless OpOpen fails.
func (fs *ErrorFS) OpenReadWrite(name string) (File, error) {
	if err := fs.inj.MaybeError(OpOpen, name); err != nil {
		return nil, err
	}
	f, err := fs.inner.OpenReadWrite(name)
	return fs.wrap(f, name, err)
}

// OpenDir opens the directory name unless OpOpen fails.
func (fs *ErrorFS) OpenDir(name string) (File, error) {
	if err := fs.inj.MaybeError(OpOpen, name); err != nil {
		return nil, err
	}
	f, err := fs.inner.OpenDir(name)
	return fs.wrap(f, name, err)
}

// Remove removes name unless OpRemove fails.
func (fs *ErrorFS) Remove(name string) error {
	if err := fs.inj.MaybeError(OpRemove, name); err != nil {
		return err
	}
	return fs.inner.Remove(name)
}

// RemoveAll removes the tree at name unless OpRemove fails.
func (fs *ErrorFS) RemoveAll(name string) error {
	if err := fs.inj.MaybeError(OpRemove, name); err != nil {
		return err
	}
	return fs.inner.RemoveAll(name)
}

// Rename renames oldname unless OpRename fails.
func (fs *ErrorFS) Rename(oldname, newname string) error {
	if err := fs.inj.MaybeError(OpRename, oldname); err != nil {
		return err
	}
	return fs.inner.Rename(oldname, newname)
}

// MkdirAll creates dir unless OpMkdir fails.
func (fs *ErrorFS) MkdirAll(dir string, perm os.FileMode) error {
	if err := fs.inj.MaybeError(OpMkdir, dir); err != nil {
		return err
	}
	return fs.inner.MkdirAll(dir, perm)
}

// List lists dir unless OpList fails.
func (fs *ErrorFS) List(dir string) ([]string, error) {
	if err := fs.inj.MaybeError(OpList, dir); err != nil {
		return nil, err
	}
	return fs.inner.List(dir)
}

// Stat describes name unless OpStat fails.
func (fs *ErrorFS) Stat(name string) (os.FileInfo, error) {
	if err := fs.inj.MaybeError(OpStat, name); err != nil {
		return nil, err
	}
	return fs.inner.Stat(name)
}

// Lock locks name unless OpLock fails.
func (fs *ErrorFS) Lock(name string) (io.Closer, error) {
	if err := fs.inj.MaybeError(OpLock, name); err != nil {
		return nil, err
	}
	return fs.inner.Lock(name)
}

// errorFile is a File of an ErrorFS.
type errorFile struct {
	fs   *ErrorFS
	f    File
	name string
}

func (f *errorFile) Read(p []byte) (int, error) {
	if err := f.fs.inj.MaybeError(OpRead, f.name); err != nil {
		return 0, err
	}
	n, err := f.f.Read(p)
	f.corrupt(p[:n])
	return n, err
}

func (f *errorFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.fs.inj.MaybeError(OpRead, f.name); err != nil {
		return 0, err
	}
	n, err := f.f.ReadAt(p, off)
	f.corrupt(p[:n])
	return n, err
}

func (f *errorFile) corrupt(p []byte) {
	if c, ok := f.fs.inj.(Corrupter); ok && len(p) > 0 {
		c.Corrupt(f.name, p)
	}
}

func (f *errorFile) Write(p []byte) (int, error) {
	if err := f.fs.inj.MaybeError(OpWrite, f.name); err != nil {
		return 0, err
	}
	return f.f.Write(p)
}

func (f *errorFile) Sync() error {
	if err := f.fs.inj.MaybeError(OpSync, f.name); err != nil {
		return err
	}
	return f.f.Sync()
}

func (f *errorFile) Stat() (os.FileInfo, error) {
	if err := f.fs.inj.MaybeError(OpStat, f.name); err != nil {
		return nil, err
	}
	return f.f.Stat()
}

func (f *errorFile) Truncate(size int64) error {
	if err := f.fs.inj.MaybeError(OpTruncate, f.name); err != nil {
		return err
	}
	return f.f.Truncate(size)
}

func (f *errorFile) Close() error { return f.f.Close() }

// errorInPlaceFile is an errorFile over a File that can be written in
// place. WriteAt and Allocate fail as Write does, SyncData as Sync does.
type errorInPlaceFile struct {
	*errorFile
	in InPlaceFile
}

func (f *errorInPlaceFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.fs.inj.MaybeError(OpWrite, f.name); err != nil {
		return 0, err
	}
	return f.in.WriteAt(p, off)
}

func (f *errorInPlaceFile) Allocate(size int64) error {
	if err := f.fs.inj.MaybeError(OpWrite, f.name); err != nil {
		return err
	}
	return f.in.Allocate(size)
}

func (f *errorInPlaceFile) SyncData() error {
	if err := f.fs.inj.MaybeError(OpSync, f.name); err != nil {
		return err
	}
	return f.in.SyncData()
}
