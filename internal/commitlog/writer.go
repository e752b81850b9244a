package commitlog

import "fmt"

// run is the writer goroutine: it takes every queued record in one go,
// writes them with one file write, syncs once and completes the batch.
func (l *Log) run() {
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

func (l *Log) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	l.dirty = true
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("commitlog: write segment %d: %w", l.currentSegment(), err)
	}
	return nil
}

func (l *Log) sync() error {
	if !l.dirty {
		return nil
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("commitlog: sync segment %d: %w", l.currentSegment(), err)
	}
	l.dirty = false
	return nil
}

// roll syncs and closes the current segment and opens segment seg.
func (l *Log) roll(seg uint64) error {
	if err := l.sync(); err != nil {
		return err
	}
	f := l.f
	l.f = nil
	if err := f.Close(); err != nil {
		return fmt.Errorf("commitlog: close segment %d: %w", l.currentSegment(), err)
	}
	f, err := l.createSegment(seg)
	if err != nil {
		return err
	}
	l.f, l.dirty = f, true
	l.mu.Lock()
	l.fileSeg = seg
	l.mu.Unlock()
	return nil
}

func (l *Log) currentSegment() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fileSeg
}

// finish closes the current segment when the log closes.
func (l *Log) finish() {
	if l.f == nil {
		return
	}
	err := l.f.Close()
	l.f = nil
	if err != nil {
		l.mu.Lock()
		l.closeErr = fmt.Errorf("commitlog: close segment %d: %w", l.fileSeg, err)
		l.mu.Unlock()
	}
}
