package memtable

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14).
const madvPopulateWrite = 23

// prefault maps the pages of a new chunk writable in one system call, so
// that filling it does not fault once per page. On a virtual machine a page
// fault can cost more than 10 µs, as much as copying a few hundred
// kilobytes; a memtable filling at disk speed would spend a third of its
// time in them (docs/BENCHMARKS.md). Only the whole pages inside b are
// populated; the contents stay as they are. Kernels without the advice
// refuse it, and the chunk then faults page by page as before.
func prefault(b []byte) {
	const page = 4096
	if len(b) < 2*page {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((page - p%page) % page)
	hi := lo + (len(b)-lo)/page*page
	_ = syscall.Madvise(b[lo:hi], madvPopulateWrite)
}
