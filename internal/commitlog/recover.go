package commitlog

import (
	"errors"
	"fmt"
	"io"

	"github.com/tabuladb/tabula/internal/base"
)

// recover checks the header of every segment and cuts a torn tail off the
// last one. It returns the number of the last segment left, 0 if none.
func (l *Log) recover() (uint64, error) {
	segs, err := listSegments(l.fs, l.dir)
	if err != nil || len(segs) == 0 {
		return 0, err
	}
	for _, seg := range segs[:len(segs)-1] {
		err := l.readSegment(seg, func(r *segmentReader) error { return r.readHeader(seg) })
		if err != nil {
			return 0, err
		}
	}
	removed, err := l.repairLast(segs[len(segs)-1])
	if err != nil {
		return 0, err
	}
	if removed {
		segs = segs[:len(segs)-1]
	}
	if len(segs) == 0 {
		return 0, nil
	}
	return segs[len(segs)-1], nil
}

// readSegment opens segment seg and calls fn with a reader of its bytes.
func (l *Log) readSegment(seg uint64, fn func(*segmentReader) error) error {
	name := l.segmentPath(seg)
	f, err := l.fs.Open(name)
	if err != nil {
		return fmt.Errorf("commitlog: open %s: %w", name, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("commitlog: stat %s: %w", name, err)
	}
	return fn(newSegmentReader(name, f, st.Size()))
}

// repairLast checks every record of the last segment. A torn tail is cut
// off; a segment whose very header is torn held nothing acknowledged and is
// removed, and repairLast reports true. Any other bad bytes are corruption.
func (l *Log) repairLast(seg uint64) (bool, error) {
	var torn *segmentReader
	err := l.readSegment(seg, func(r *segmentReader) error {
		r.tornCheck = true
		if err := r.readHeader(seg); err != nil {
			return tornOr(r, &torn, err)
		}
		for {
			_, _, err := r.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return tornOr(r, &torn, err)
			}
		}
	})
	switch {
	case err != nil:
		return false, err
	case torn == nil:
		return false, nil
	case torn.frame == 0:
		return true, l.removeSegment(seg)
	}
	return false, l.truncateSegment(seg, torn.frame)
}

// tornOr records r in *torn if err is a torn tail, and returns err otherwise.
func tornOr(r *segmentReader, torn **segmentReader, err error) error {
	if r.torn && errors.Is(err, base.ErrCorruption) {
		*torn = r
		return nil
	}
	return err
}

func (l *Log) removeSegment(seg uint64) error {
	name := l.segmentPath(seg)
	if err := l.fs.Remove(name); err != nil {
		return fmt.Errorf("commitlog: remove %s: %w", name, err)
	}
	return l.syncDir()
}

func (l *Log) truncateSegment(seg uint64, size int64) error {
	name := l.segmentPath(seg)
	f, err := l.fs.OpenReadWrite(name)
	if err != nil {
		return fmt.Errorf("commitlog: open %s: %w", name, err)
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("commitlog: cut torn tail of %s at %d: %w", name, size, err)
	}
	return nil
}
