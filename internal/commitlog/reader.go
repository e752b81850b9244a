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
// a write cut short by a crash: an incomplete frame at the end of the
// segment with no valid frame after its header, a checksum failure in its
// final frame, or zeros to its end.
type segmentReader struct {
	name  string
	br    *bufio.Reader
	off   int64 // offset of the next unread byte
	size  int64 // bytes in the segment
	buf   []byte
	frame int64
	torn  bool
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
		return r.bad(0, r.size < headerLen, why, h)
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
		return off, nil, r.pastEnd(off, n)
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
// seen were read already. The bytes count as torn if torn is set or they are
// zeros to the end of the segment; checking that reads the rest.
func (r *segmentReader) bad(off int64, torn bool, why string, seen ...[]byte) error {
	r.frame, r.torn = off, torn
	if !torn {
		zero, err := r.zerosToEnd(seen)
		if err != nil {
			return err
		}
		r.torn = zero
	}
	return base.Corruptf(r.name, off, "%s", why)
}

// pastEnd returns a corruption error for a frame at off whose length n runs
// past the end of the segment. It is torn unless a valid frame follows its
// header, which means the length itself is bad.
func (r *segmentReader) pastEnd(off, n int64) error {
	rest := make([]byte, r.size-r.off)
	if err := r.read(rest); err != nil {
		return err
	}
	r.frame, r.torn = off, !containsFrame(rest)
	return base.Corruptf(r.name, off, "record length %d runs past end of segment", n)
}

// containsFrame reports whether a valid frame starts anywhere in b.
func containsFrame(b []byte) bool {
	for o := 0; o+frameHeaderLen <= len(b); o++ {
		n := int(binary.LittleEndian.Uint32(b[o:]))
		end := o + frameHeaderLen + n
		if n > MaxRecordSize || end > len(b) {
			continue
		}
		if frameCRC(b[o:o+4], b[o+frameHeaderLen:end]) == binary.LittleEndian.Uint32(b[o+4:]) {
			return true
		}
	}
	return false
}

func (r *segmentReader) zerosToEnd(seen [][]byte) (bool, error) {
	for _, b := range seen {
		if !isZero(b) {
			return false, nil
		}
	}
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
