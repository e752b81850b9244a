package commitlog

import (
	"fmt"
	"runtime"

	"github.com/tabuladb/tabula/internal/vfs"
)

// allocStep is how far ahead of the last frame a segment written in place
// is laid out with zeros, at most: a quarter of the segment size.
const allocStep = 4 << 20

// run is the writer goroutine: it takes every queued record in one go,
// writes them with one file write, syncs once and completes the batch.
//
// It keeps an OS thread of its own. The sync blocks the thread that makes
// it; on a shared thread, the scheduler hands that thread's work to another
// one at every sync and parks a thread when the sync returns. Durable writes
// cost less CPU and run faster with the thread kept (docs/BENCHMARKS.md).
func (l *Log) run() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(l.done)
	for {
		l.mu.Lock()
		for l.batch == nil && !l.closing {
			l.work.Wait()
		}
		if l.batch == nil {
			l.mu.Unlock()
			l.finish()
			return
		}
		b, data, rolls, end, err := l.batch, l.buf, l.rolls, l.next, l.err
		l.batch, l.buf, l.rolls = nil, l.spare[:0], l.spareRolls[:0]
		l.mu.Unlock()

		if err == nil {
			err = l.flush(data, rolls)
		}
		l.mu.Lock()
		switch {
		case err == nil:
			l.synced = end
		case l.err == nil:
			l.err = failure(err)
		}
		err = l.err
		l.spare, l.spareRolls = data[:0], rolls[:0]
		l.mu.Unlock()
		b.err = err
		close(b.done)
	}
}

// flush writes data, switching segments where rolls say, and syncs it.
func (l *Log) flush(data []byte, rolls []roll) error {
	start := 0
	for _, r := range rolls {
		if err := l.write(data[start:r.at]); err != nil {
			return err
		}
		if err := l.roll(r.seg); err != nil {
			return err
		}
		start = r.at
	}
	if err := l.write(data[start:]); err != nil {
		return err
	}
	return l.sync()
}

// write adds b to the segment: in place, into zeros laid out ahead, when
// the file allows it, so that the sync after it need not touch metadata.
func (l *Log) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	l.dirty = true
	var err error
	if l.in == nil {
		_, err = l.f.Write(b)
	} else {
		err = l.writeInPlace(b)
	}
	if err != nil {
		return fmt.Errorf("commitlog: write segment %d: %w", l.currentSegment(), err)
	}
	l.end += int64(len(b))
	return nil
}

func (l *Log) writeInPlace(b []byte) error {
	if need := l.end + int64(len(b)); need > l.alloc {
		if err := l.allocate(need); err != nil {
			return err
		}
	}
	_, err := l.in.WriteAt(b, l.end)
	return err
}

// allocate lays out zeros to need bytes and a step beyond, within the
// segment size. The next sync is then a full one, which makes them durable.
func (l *Log) allocate(need int64) error {
	step := min(allocStep, max(l.segSize/4, 1))
	size := max(need, min(need+step, l.segSize))
	if err := l.in.Allocate(size); err != nil {
		return err
	}
	l.alloc, l.meta = size, true
	return nil
}

func (l *Log) sync() error {
	if !l.dirty {
		return nil
	}
	var err error
	if l.in != nil && !l.meta {
		err = l.in.SyncData()
	} else {
		err = l.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("commitlog: sync segment %d: %w", l.currentSegment(), err)
	}
	l.dirty, l.meta = false, false
	return nil
}

// roll syncs and closes the current segment and starts segment seg.
func (l *Log) roll(seg uint64) error {
	if err := l.closeSegment(); err != nil {
		return err
	}
	if err := l.startSegment(seg); err != nil {
		return err
	}
	l.mu.Lock()
	l.fileSeg = seg
	l.mu.Unlock()
	return nil
}

// closeSegment syncs the current segment, cuts the zeros laid out past its
// last frame, and closes it. Only the last segment can end in zeros, so a
// crash never leaves them before a later segment.
func (l *Log) closeSegment() error {
	if err := l.sync(); err != nil {
		return err
	}
	if l.in != nil && l.alloc > l.end {
		if err := l.f.Truncate(l.end); err != nil {
			return fmt.Errorf("commitlog: trim segment %d: %w", l.currentSegment(), err)
		}
		l.dirty, l.meta = true, true
		if err := l.sync(); err != nil {
			return err
		}
	}
	f := l.f
	l.f, l.in = nil, nil
	if err := f.Close(); err != nil {
		return fmt.Errorf("commitlog: close segment %d: %w", l.currentSegment(), err)
	}
	return nil
}

// startSegment creates segment seg and makes it the one written; the next
// sync makes it durable.
func (l *Log) startSegment(seg uint64) error {
	f, err := l.createSegment(seg)
	if err != nil {
		return err
	}
	l.f, l.end, l.alloc = f, headerLen, headerLen
	l.in, _ = f.(vfs.InPlaceFile)
	l.dirty, l.meta = true, true
	if l.in != nil {
		if err := l.allocate(headerLen); err != nil {
			f.Close()
			l.f, l.in = nil, nil
			return fmt.Errorf("commitlog: allocate %s: %w", l.segmentPath(seg), err)
		}
	}
	return nil
}

func (l *Log) currentSegment() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fileSeg
}

// finish closes the current segment when the log closes; a failed log's
// segment is closed as it is, for recovery to cut.
func (l *Log) finish() {
	if l.f == nil {
		return
	}
	l.mu.Lock()
	failed := l.err != nil
	l.mu.Unlock()
	var err error
	if failed {
		if cerr := l.f.Close(); cerr != nil {
			err = fmt.Errorf("commitlog: close segment %d: %w", l.currentSegment(), cerr)
		}
		l.f, l.in = nil, nil
	} else {
		err = l.closeSegment()
	}
	if err != nil {
		l.mu.Lock()
		l.closeErr = err
		l.mu.Unlock()
	}
}
