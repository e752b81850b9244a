package commitlog

import (
	"fmt"
	"io"
)

// Replay calls fn for every durable record at a position ≥ from, in
// position order across segments. rec is valid only during the call. An
// error from fn stops the replay and is returned; a record that fails its
// checks is an error wrapping base.ErrCorruption that names the file and
// offset.
//
// Replay is meant to run after Open and before writes, but it may run at
// any time: it reads the records synced when it starts and none written
// later. Segments that Release deletes while Replay runs make it fail.
func (l *Log) Replay(from Pos, fn func(pos Pos, rec []byte) error) error {
	l.mu.Lock()
	limit := l.synced
	l.mu.Unlock()
	segs, err := listSegments(l.fs, l.dir)
	if err != nil {
		return err
	}
	for _, seg := range segs {
		if seg < from.Segment || seg > limit.Segment {
			continue
		}
		err := l.readSegment(seg, func(r *segmentReader) error {
			if seg == limit.Segment {
				r.size = min(r.size, limit.Offset)
			}
			return replaySegment(r, seg, from, fn)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func replaySegment(r *segmentReader, seg uint64, from Pos, fn func(Pos, []byte) error) error {
	if err := r.readHeader(seg); err != nil {
		return err
	}
	for {
		off, rec, err := r.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if pos := (Pos{Segment: seg, Offset: off}); !pos.Less(from) {
			if err := fn(pos, rec); err != nil {
				return err
			}
		}
	}
}

// Release deletes the segment files wholly before before.Segment, never
// the one being written. Records in them can no longer be replayed.
func (l *Log) Release(before Pos) error {
	l.releaseMu.Lock()
	defer l.releaseMu.Unlock()
	l.mu.Lock()
	cur, closing := l.fileSeg, l.closing
	l.mu.Unlock()
	if closing {
		return errClosed
	}
	segs, err := listSegments(l.fs, l.dir)
	if err != nil {
		return err
	}
	removed := false
	for _, seg := range segs {
		if seg >= min(before.Segment, cur) {
			break
		}
		name := l.segmentPath(seg)
		if err := l.fs.Remove(name); err != nil {
			return fmt.Errorf("commitlog: remove %s: %w", name, err)
		}
		removed = true
	}
	if removed {
		return l.syncDir()
	}
	return nil
}
