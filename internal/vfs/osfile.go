package vfs

import (
	"os"
	"sync"
)

// osFile is a File of the operating system. It is opened without O_APPEND,
// which would make the kernel ignore WriteAt's offset, and keeps the end
// itself: Write appends there. Like pwrite, writes leave the read position
// alone.
type osFile struct {
	f   *os.File
	mu  sync.Mutex
	end int64 // the file's size as this handle changed it
}

func newOSFile(f *os.File) (*osFile, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return &osFile{f: f, end: fi.Size()}, nil
}

func (f *osFile) Read(p []byte) (int, error)              { return f.f.Read(p) }
func (f *osFile) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }
func (f *osFile) Stat() (os.FileInfo, error)              { return f.f.Stat() }
func (f *osFile) Sync() error                             { return f.f.Sync() }
func (f *osFile) SyncData() error                         { return fdatasync(f.f) }
func (f *osFile) Close() error                            { return f.f.Close() }

// Write appends p to the file.
func (f *osFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.f.WriteAt(p, f.end)
	f.end += int64(n)
	return n, err
}

func (f *osFile) WriteAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.f.WriteAt(p, off)
	if n > 0 {
		f.end = max(f.end, off+int64(n))
	}
	return n, err
}

func (f *osFile) Truncate(size int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.f.Truncate(size); err != nil {
		return err
	}
	f.end = size
	return nil
}

// allocChunk is how many zeros Allocate writes with one call.
const allocChunk = 1 << 20

// Allocate writes zeros from the end of the file to size. Writing them,
// rather than leaving a hole or reserving unwritten extents, is what lets
// a later WriteAt and SyncData skip the metadata.
func (f *osFile) Allocate(size int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	zeros := make([]byte, min(allocChunk, max(0, size-f.end)))
	for f.end < size {
		n, err := f.f.WriteAt(zeros[:min(int64(len(zeros)), size-f.end)], f.end)
		f.end += int64(n)
		if err != nil {
			return err
		}
	}
	return nil
}
