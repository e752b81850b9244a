package memtable

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// prefault maps the pages of a new chunk writable in one system call
// (MADV_POPULATE_WRITE), so that filling it does not fault once per page.
// On a virtual machine a page fault can cost more than 10 µs, as much as
// copying a few hundred kilobytes; a memtable filling at disk speed would
// spend a third of its time in them (docs/BENCHMARKS.md). Only the whole
// pages inside b are populated; the contents stay as they are. Kernels
// before 5.14 refuse the advice, and the chunk then faults page by page.
func prefault(b []byte) {
	const page = 4096
	if len(b) < 2*page {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((page - p%page) % page)
	hi := lo + (len(b)-lo)/page*page
	_ = unix.Madvise(b[lo:hi], unix.MADV_POPULATE_WRITE)
}
