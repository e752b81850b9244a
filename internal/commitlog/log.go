package commitlog

import (
	"fmt"
	"sync"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// Log is a commit log. Its methods are safe for concurrent use.
type Log struct {
	fs      vfs.FS
	dir     string
	segSize int64

	mu         sync.Mutex
	work       sync.Cond // signalled when a batch starts or the log closes
	batch      *batch    // completion of the records in buf; nil if none
	buf        []byte    // frames queued for the writer
	rolls      []roll    // segment switches within buf
	spare      []byte    // buffer the writer handed back, reused for buf
	spareRolls []roll
	next       Pos    // position of the next record, unless it rolls
	synced     Pos    // end of the durable records
	fileSeg    uint64 // segment the writer has open
	err        error  // sticky failure; wraps ErrFailed
	closing    bool
	closeErr   error
	done       chan struct{} // closed when the writer goroutine exits

	releaseMu sync.Mutex // serializes Release

	// Owned by the writer goroutine.
	f     vfs.File
	in    vfs.InPlaceFile // f, if it can be written in place; else nil
	end   int64           // bytes written to f: header and frames
	alloc int64           // with in: f's size, zeros laid out past end
	dirty bool            // f has writes not yet synced
	meta  bool            // f's size changed since its last sync
}

// roll says that the frames from offset at in the queued buffer go to the
// new segment seg.
type roll struct {
	at  int
	seg uint64
}

// Open opens the log in opts.Dir, creating the directory if missing. It
// checks the header of every segment, cuts a torn tail off the last one and
// starts a new segment for the writes to come. Records of earlier segments
// are checked when Replay reads them.
func Open(opts Options) (*Log, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	l := &Log{fs: opts.FS, dir: opts.Dir, segSize: opts.segmentSize(), done: make(chan struct{})}
	l.work.L = &l.mu
	if err := l.fs.MkdirAll(l.dir, 0o755); err != nil {
		return nil, fmt.Errorf("commitlog: create %s: %w", l.dir, err)
	}
	last, err := l.recover()
	if err != nil {
		return nil, err
	}
	seg := last + 1
	if err := l.startSegment(seg); err != nil {
		return nil, err
	}
	if err := l.sync(); err != nil {
		l.f.Close()
		return nil, err
	}
	l.next = Pos{Segment: seg, Offset: headerLen}
	l.synced, l.fileSeg = l.next, seg
	go l.run()
	return l, nil
}

// Write queues rec and returns at once, without waiting for I/O; Wait on
// the result blocks until rec is durable. Positions strictly increase in
// the order of Write calls. Write copies rec.
func (l *Log) Write(rec []byte) (*Pending, error) {
	if len(rec) > MaxRecordSize {
		return nil, base.InvalidArgf("commitlog: record of %d bytes over limit %d", len(rec), MaxRecordSize)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closing:
		return nil, errClosed
	case l.err != nil:
		return nil, l.err
	}
	size := int64(frameHeaderLen + len(rec))
	if l.next.Offset > headerLen && l.next.Offset+size > l.segSize {
		l.next = Pos{Segment: l.next.Segment + 1, Offset: headerLen}
		l.rolls = append(l.rolls, roll{at: len(l.buf), seg: l.next.Segment})
	}
	if l.batch == nil {
		l.batch = newBatch()
		l.work.Signal()
	}
	p := &Pending{pos: l.next, b: l.batch}
	l.buf = appendFrame(l.buf, rec)
	l.next.Offset += size
	return p, nil
}

// Append writes rec and waits until it is durable.
func (l *Log) Append(rec []byte) (Pos, error) {
	p, err := l.Write(rec)
	if err != nil {
		return Pos{}, err
	}
	return p.pos, p.Wait()
}

// Head returns a position after every record written so far and not after
// the position of the next one.
func (l *Log) Head() Pos {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// Close writes and syncs every queued record, then closes the log. Calls
// after the first fail with an error wrapping base.ErrClosed. Close reports
// the failure of a failed log.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return errClosed
	}
	l.closing = true
	l.work.Signal()
	l.mu.Unlock()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	return l.closeErr
}
