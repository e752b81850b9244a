package vfs

import "slices"

// pageSize is the unit in which a MemFS file's contents are stored and
// copied on write.
const pageSize = 64 << 10

// pages holds a MemFS file's contents in fixed-size pages, so a file grows
// without copying what it holds and a snapshot shares the pages it has not
// changed. A page may be shorter than pageSize, or nil, and reads as zeros
// past its length. The contents read as zeros from written on: past the
// last byte ever written, as zero-extended or allocated space does. A
// snapshot's pages may hold later bytes there, written in place by the file
// it was taken of; reads never see them.
type pages struct {
	p       [][]byte
	size    int64
	written int64 // end of the written bytes; at most size
}

func pagesOf(b []byte) pages {
	var d pages
	d.writeAt(b, 0, nil)
	return d
}

// snapshot returns a copy of d that shares its pages; writes to either copy
// a page before changing it if the other holds it (see writeAt).
func (d *pages) snapshot() pages {
	return pages{p: slices.Clone(d.p), size: d.size, written: d.written}
}

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
	stored := int(max(0, min(int64(n), d.written-off)))
	clear(b[stored:n])
	for done := 0; done < stored; {
		i, at := d.locate(off + int64(done))
		chunk := b[done:min(stored, done+pageSize-at)]
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
// write lands past the bytes written to shared, which shared reads as
// zeros whatever its pages hold.
func (d *pages) writeAt(b []byte, off int64, shared *pages) {
	if len(b) == 0 {
		return
	}
	if off > d.written {
		// The zeros between were read from nothing; store them.
		d.fill(d.written, off, shared)
	}
	for done := 0; done < len(b); {
		i, at := d.locate(off + int64(done))
		n := min(len(b)-done, pageSize-at)
		page := d.own(i, at+n, off+int64(done), shared)
		copy(page[at:], b[done:done+n])
		done += n
	}
	d.size = max(d.size, off+int64(len(b)))
	d.written = max(d.written, off+int64(len(b)))
}

// fill stores zeros in [from, to), where the pages may hold stale bytes
// past written: ones the file wrote before it was cut back.
func (d *pages) fill(from, to int64, shared *pages) {
	for off := from; off < to; {
		i, at := d.locate(off)
		n := int(min(to-off, int64(pageSize-at)))
		if i < len(d.p) && len(d.p[i]) > at {
			page := d.own(i, min(at+n, len(d.p[i])), off, shared)
			clear(page[at:min(at+n, len(page))])
		}
		off += int64(n)
	}
}

// truncate cuts or zero-extends the contents to size.
func (d *pages) truncate(size int64, shared *pages) {
	if size < d.size {
		keep := int((size + pageSize - 1) / pageSize)
		if keep < len(d.p) {
			d.p = slices.Clip(d.p[:keep])
		}
	}
	d.size = size
	d.written = min(d.written, size)
}

func (d *pages) locate(off int64) (int, int) {
	return int(off / pageSize), int(off % pageSize)
}

// own returns page i, at least n bytes long, for a change from offset from
// on: a copy if shared holds the page and reads written bytes there.
func (d *pages) own(i, n int, from int64, shared *pages) []byte {
	if i >= len(d.p) {
		d.p = append(d.p, make([][]byte, i+1-len(d.p))...)
	}
	page := d.p[i]
	switch {
	case shared != nil && from < shared.written && i < len(shared.p) && samePage(page, shared.p[i]):
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
