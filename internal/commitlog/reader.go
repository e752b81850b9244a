package commitlog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/tabuladb/tabula/internal/base"
)

// segmentReader reads the header and then the frames of one segment in
// order, checking each. When a read fails with a corruption error, frame is
// the offset where the bad bytes start and torn says whether they look like
// a write cut short by a crash: bad bytes after which no valid frame
// starts. A crash cuts short only the batch being written, after every
// synced frame, and leaves after it nothing, or the zeros laid out ahead of
// the writes.
type segmentReader struct {
	// tornCheck asks for torn to be worked out; only the repair of the
	// last segment needs it, and it may read the rest of the segment.
	tornCheck bool
	name      string
	br        *bufio.Reader
	off       int64 // offset of the next unread byte
	size      int64 // bytes in the segment
	buf       []byte
	frame     int64
	torn      bool
}

func newSegmentReader(name string, r io.Reader, size int64) *segmentReader {
	return &segmentReader{
		name: name,
		br:   bufio.NewReaderSize(io.LimitReader(r, size), 64<<10),
		size: size,
	}
}

// readHeader reads and checks the header of segment seg.
func (r *segmentReader) readHeader(seg uint64) error {
	h := make([]byte, min(r.size, headerLen))
	if err := r.read(h); err != nil {
		return err
	}
	if why := checkHeader(h, seg); why != "" {
		// Only a header cut short, or never written, is torn: a whole
		// header of another format is not this writer's crash.
		r.frame, r.torn = 0, r.size < headerLen
		if !r.torn && r.tornCheck && isZero(h) {
			zero, err := r.zerosToEnd()
			if err != nil {
				return err
			}
			r.torn = zero
		}
		return base.Corruptf(r.name, 0, "%s", why)
	}
	return nil
}

// next returns the offset and payload of the next frame, or io.EOF at the
// end of the segment. The payload is valid until the next call.
func (r *segmentReader) next() (int64, []byte, error) {
	off, rem := r.off, r.size-r.off
	if rem == 0 {
		return off, nil, io.EOF
	}
	var hdr [frameHeaderLen]byte
	if rem < frameHeaderLen {
		if err := r.read(hdr[:rem]); err != nil {
			return off, nil, err
		}
		return off, nil, r.bad(off, true, "incomplete frame header")
	}
	if err := r.read(hdr[:]); err != nil {
		return off, nil, err
	}
	n := int64(binary.LittleEndian.Uint32(hdr[:4]))
	if n > MaxRecordSize {
		return off, nil, r.bad(off, false, fmt.Sprintf("record length %d over limit", n), hdr[:])
	}
	if n > rem-frameHeaderLen {
		return off, nil, r.bad(off, false, fmt.Sprintf("record length %d runs past end of segment", n), hdr[:])
	}
	if int64(cap(r.buf)) < n {
		r.buf = make([]byte, n)
	}
	rec := r.buf[:n]
	if err := r.read(rec); err != nil {
		return off, nil, err
	}
	if frameCRC(hdr[:4], rec) != binary.LittleEndian.Uint32(hdr[4:]) {
		final := r.off == r.size
		return off, nil, r.bad(off, final, "record checksum mismatch", hdr[:], rec)
	}
	return off, rec, nil
}

// bad returns a corruption error for the bytes starting at off, of which
// seen were read already. With tornCheck, the bytes count as torn if torn
// is set or no valid frame starts after off; checking that reads the rest.
func (r *segmentReader) bad(off int64, torn bool, why string, seen ...[]byte) error {
	r.frame, r.torn = off, torn
	if !torn && r.tornCheck {
		rest, err := r.rest(seen)
		if err != nil {
			return err
		}
		r.torn = !containsFrame(rest[1:])
	}
	return base.Corruptf(r.name, off, "%s", why)
}

// rest returns seen followed by the unread bytes of the segment.
func (r *segmentReader) rest(seen [][]byte) ([]byte, error) {
	var b []byte
	for _, s := range seen {
		b = append(b, s...)
	}
	tail := make([]byte, r.size-r.off)
	if err := r.read(tail); err != nil {
		return nil, err
	}
	return append(b, tail...), nil
}

// crcBudget bounds the bytes containsFrame checksums. Past it, it answers
// that a frame may be there: refusing to open is safe, cutting is not.
const crcBudget = 1 << 30

// containsFrame reports whether a valid frame starts anywhere in b, or
// may: it gives up, and says yes, after checksumming crcBudget bytes.
func containsFrame(b []byte) bool {
	budget := crcBudget
	for o := 0; o+frameHeaderLen <= len(b); o++ {
		n := int(binary.LittleEndian.Uint32(b[o:]))
		sum := binary.LittleEndian.Uint32(b[o+4:])
		end := o + frameHeaderLen + n
		if (n == 0 && sum == 0) || n > MaxRecordSize || end > len(b) {
			// A header of zeros is never valid (docs/format/commitlog.md),
			// and the zeros laid out past the last frame are many.
			continue
		}
		if budget -= n; budget < 0 || frameCRC(b[o:o+4], b[o+frameHeaderLen:end]) == sum {
			return true
		}
	}
	return false
}

func (r *segmentReader) read(p []byte) error {
	n, err := io.ReadFull(r.br, p)
	r.off += int64(n)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("commitlog: %s shrank while read at offset %d", r.name, r.off)
	}
	if err != nil {
		return fmt.Errorf("commitlog: read %s: %w", r.name, err)
	}
	return nil
}

// zerosToEnd reports whether the unread rest of the segment is all zeros.
func (r *segmentReader) zerosToEnd() (bool, error) {
	var chunk [4096]byte
	for r.off < r.size {
		b := chunk[:min(int64(len(chunk)), r.size-r.off)]
		if err := r.read(b); err != nil {
			return false, err
		}
		if !isZero(b) {
			return false, nil
		}
	}
	return true, nil
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
