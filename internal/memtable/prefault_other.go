//go:build !linux

package memtable

// prefault does nothing where the system has no way to populate pages
// ahead; the chunk faults page by page.
func prefault([]byte) {}
