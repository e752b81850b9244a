// Package vfs is the one door to files. The engine reaches data files only
// through FS, so tests can run it on memory, on a crash clone that drops
// unsynced data, or through an error-injecting wrapper.
package vfs

import (
	"errors"
	"io"
	"os"
)

// File is an open file. Write appends to the file; ReadAt works on files
// opened for reading.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.Closer
	// Sync makes the file's written data durable.
	Sync() error
	// Stat describes the file.
	Stat() (os.FileInfo, error)
	// Truncate cuts or extends the file to size bytes.
	Truncate(size int64) error
}

// InPlaceFile is the optional interface of a File that can be written in
// place, for a log that syncs without changing metadata: Allocate writes
// zeros ahead, WriteAt fills them, and SyncData makes that durable without
// the inode update a growing file needs. Every File of this package has it.
type InPlaceFile interface {
	File
	io.WriterAt
	// Allocate extends the file with zeros to size bytes, if shorter, and
	// lays them out so that writes within them change no metadata once the
	// file is synced. It does not sync.
	Allocate(size int64) error
	// SyncData makes the file's data durable, and its size; unlike Sync it
	// may leave times and other metadata behind.
	SyncData() error
}

// FS is a file system. Names are slash-separated paths; directories must be
// created before files in them.
type FS interface {
	// Create creates or truncates a file for writing (and reading).
	Create(name string) (File, error)
	// Open opens an existing file for reading.
	Open(name string) (File, error)
	// OpenReadWrite opens an existing file for reading and writing, with
	// writes appended at its end.
	OpenReadWrite(name string) (File, error)
	// OpenDir opens a directory so that Sync persists its entries.
	OpenDir(name string) (File, error)
	// Remove deletes a file or an empty directory.
	Remove(name string) error
	// RemoveAll deletes a directory tree; a missing path is not an error.
	RemoveAll(name string) error
	// Rename moves oldname to newname, replacing newname if it exists.
	Rename(oldname, newname string) error
	// MkdirAll creates a directory and its parents.
	MkdirAll(dir string, perm os.FileMode) error
	// List returns the names of a directory's entries, sorted.
	List(dir string) ([]string, error)
	// Stat describes a file.
	Stat(name string) (os.FileInfo, error)
	// Lock takes an exclusive lock on a lock file, creating it if needed;
	// it fails if the lock is held, by this process or another.
	Lock(name string) (io.Closer, error)
}

// ErrLocked is returned by Lock when the lock is already held.
var ErrLocked = errors.New("vfs: lock is held")
