//go:build !linux

package vfs

import "os"

// fdatasync is a full sync where the system has no cheaper one at hand.
func fdatasync(f *os.File) error { return f.Sync() }
