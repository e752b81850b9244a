package vfs

import (
	"os"
	"path"
	"time"
)

// info describes n under name; the caller holds the MemFS lock.
func (n *memNode) info(name string) os.FileInfo {
	return memFileInfo{name: path.Base(cleanPath(name)), size: n.data.size, dir: n.dir}
}

// memFileInfo is a MemFS file's os.FileInfo.
type memFileInfo struct {
	name string
	size int64
	dir  bool
}

func (fi memFileInfo) Name() string       { return fi.name }
func (fi memFileInfo) Size() int64        { return fi.size }
func (fi memFileInfo) ModTime() time.Time { return time.Time{} }
func (fi memFileInfo) IsDir() bool        { return fi.dir }
func (fi memFileInfo) Sys() any           { return nil }

func (fi memFileInfo) Mode() os.FileMode {
	if fi.dir {
		return os.ModeDir | 0o755
	}
	return 0o644
}
