package vfs

import "slices"

// pageSize is the unit in which a MemFS file's contents are stored and
// copied on write.
const pageSize = 64 << 10

// pages holds a MemFS file's contents in fixed-size pages, so a file grows
// without copying what it holds and a snapshot shares the pages it has not
// changed. A page may be shorter than pageSize, or nil, and reads as zeros
// past its length; bytes of a page past size are zeros.
type pages struct {
	p    [][]byte
	size int64
}

func pagesOf(b []byte) pages {
	var d pages
	d.writeAt(b, 0, nil)
	return d
}

// snapshot returns a copy of d that shares its pages; writes to either copy
// a page before changing it if the other holds it (see writeAt).
func (d *pages) snapshot() pages { return pages{p: slices.Clone(d.p), size: d.size} }

// bytes returns a copy of the contents.
func (d *pages) bytes() []byte {
	b := make([]byte, d.size)
	d.readAt(b, 0)
	return b
}

// readAt copies the contents from off into b and returns how many bytes it
// copied, fewer than len(b) at the end of the file.
func (d *pages) readAt(b []byte, off int64) int {
	n := int(max(0, min(int64(len(b)), d.size-off)))
	for done := 0; done < n; {
		i, at := d.locate(off + int64(done))
		chunk := b[done:min(n, done+pageSize-at)]
		var page []byte
		if i < len(d.p) {
			page = d.p[i]
		}
		c := copy(chunk, page[min(at, len(page)):])
		clear(chunk[c:])
		done += len(chunk)
	}
	return n
}

// writeAt copies b into the contents at off, growing the file if it ends
// past size. A page that shared also holds is copied first, unless the
// write lands past shared's end, where shared reads nothing.
func (d *pages) writeAt(b []byte, off int64, shared *pages) {
	for done := 0; done < len(b); {
		i, at := d.locate(off + int64(done))
		n := min(len(b)-done, pageSize-at)
		page := d.own(i, at+n, off+int64(done), shared)
		copy(page[at:], b[done:done+n])
		done += n
	}
	d.size = max(d.size, off+int64(len(b)))
}

// truncate cuts or zero-extends the contents to size.
func (d *pages) truncate(size int64, shared *pages) {
	if size < d.size {
		keep := int((size + pageSize - 1) / pageSize)
		if keep < len(d.p) {
			d.p = slices.Clip(d.p[:keep])
		}
		if i, at := d.locate(size); at > 0 && i < len(d.p) && len(d.p[i]) > at {
			clear(d.own(i, at, size, shared)[at:])
		}
	}
	d.size = size
}

func (d *pages) locate(off int64) (int, int) {
	return int(off / pageSize), int(off % pageSize)
}

// own returns page i, at least n bytes long, for a change from offset from
// on: a copy if shared holds the page and reads bytes there.
func (d *pages) own(i, n int, from int64, shared *pages) []byte {
	if i >= len(d.p) {
		d.p = append(d.p, make([][]byte, i+1-len(d.p))...)
	}
	page := d.p[i]
	switch {
	case shared != nil && from < shared.size && i < len(shared.p) && samePage(page, shared.p[i]):
		page = append(make([]byte, 0, pageCap(max(n, len(page)))), page...)
	case cap(page) < n:
		page = append(make([]byte, 0, pageCap(n)), page...)
	}
	if len(page) < n {
		page = page[:n]
	}
	d.p[i] = page
	return page
}

// pageCap is the capacity to give a page that must hold n bytes: small
// files take little room, and a page doubles on its way to pageSize.
func pageCap(n int) int {
	c := 512
	for c < n {
		c *= 2
	}
	return min(c, pageSize)
}

func samePage(a, b []byte) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}
