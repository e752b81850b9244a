package tablet

import (
	"bytes"
	"fmt"

	"github.com/tabuladb/tabula/internal/base"
)

// snapshot is a consistent view of a tablet: every mutation up to seq, in
// the memtables and the SSTables of vers.
type snapshot struct {
	seq    uint64
	mems   []*memTable
	vers   *version
	schema *Schema
}

func (t *Tablet) acquire() (*snapshot, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.vers == nil {
		return nil, fmt.Errorf("tablet: %v was split or merged: %w", t, base.ErrUnavailable)
	}
	s := &snapshot{seq: t.visible, vers: t.vers, schema: t.schema}
	s.mems = append(append(make([]*memTable, 0, len(t.imm)+1), t.imm...), t.mem)
	t.vers.ref()
	return s, nil
}

func (s *snapshot) release() { s.vers.unref() }

// iters opens an iterator on every source of the snapshot for the encoded
// key range [lower, upper). When row is not nil, SSTables whose Bloom
// filter rules the row out are skipped.
func (t *Tablet) iters(s *snapshot, lower, upper, row []byte) ([]base.Iterator, error) {
	its := make([]base.Iterator, 0, len(s.mems)+s.vers.count())
	for _, m := range s.mems {
		if !m.mt.Empty() {
			its = append(its, m.mt.NewIter())
		}
	}
	if row != nil && t.h.rowCache != nil && s.vers.count() > 0 {
		it, err := t.cachedFiles(s, row, lower, upper)
		if err != nil {
			return nil, err
		}
		return append(its, it), nil
	}
	files, err := t.fileIters(s, lower, upper, row, false)
	if err != nil {
		return nil, err
	}
	return append(its, files...), nil
}

// fileIters opens an iterator on every SSTable of the snapshot that may
// hold keys in [lower, upper) (of row, when row is not nil). Iterators of
// a compaction leave the block cache as it is.
func (t *Tablet) fileIters(s *snapshot, lower, upper, row []byte, compaction bool) ([]base.Iterator, error) {
	its := make([]base.Iterator, 0, s.vers.count())
	var prefix []byte
	if row != nil {
		prefix = base.RowPrefix(row)
	}
	for _, f := range s.vers.files() {
		r, err := t.h.reader(f)
		if err != nil {
			for _, it := range its {
				it.Close()
			}
			return nil, err
		}
		if prefix != nil && !r.MayContain(prefix) {
			continue
		}
		if compaction {
			its = append(its, r.NewCompactionIter(lower, upper))
		} else {
			its = append(its, r.NewIter(lower, upper))
		}
	}
	return its, nil
}

// ScanOptions say which rows a scan reads.
type ScanOptions struct {
	// Start and End bound the rows read to [Start, End); nil End means
	// the end of the tablet. The range is clipped to the tablet's.
	Start, End []byte
	// Reverse reads rows from the last to the first.
	Reverse bool
}

// Scanner reads rows from a consistent snapshot of a tablet.
type Scanner struct {
	snap *snapshot
	rows *rowIter
	err  error
}

// NewScanner starts a scan. The caller must Close it.
func (t *Tablet) NewScanner(o ScanOptions) *Scanner {
	lower, upper := t.clip(o.Start, o.End)
	snap, err := t.acquire()
	if err != nil {
		return &Scanner{err: err}
	}
	s := &Scanner{snap: snap}
	row := o.singleRow()
	if row != nil && !t.Contains(row) {
		// The row cache is keyed by version and row, and the halves of a
		// split share a version: only the tablet holding the row may fill
		// its entry.
		row = nil
	}
	its, err := t.iters(s.snap, lower, upper, row)
	if err != nil {
		s.err = err
		return s
	}
	s.rows = newRowIter(newMergingIter(its), lower, upper, o.Reverse, t.rowState(s.snap))
	return s
}

// singleRow returns the row when the options cover exactly one, as a read
// by row key does, so that the scan can use the Bloom filters and the row
// cache; otherwise nil.
func (o ScanOptions) singleRow() []byte {
	n := len(o.Start)
	if n == 0 || len(o.End) != n+1 || o.End[n] != 0 || !bytes.Equal(o.End[:n], o.Start) {
		return nil
	}
	return o.Start
}

// clip turns a row range into encoded bounds within the tablet.
func (t *Tablet) clip(start, end []byte) (lower, upper []byte) {
	lower, upper = t.lower, t.upper
	if start != nil {
		if l := base.RowPrefix(start); bytes.Compare(l, lower) > 0 {
			lower = l
		}
	}
	if end != nil {
		if u := base.RowPrefix(end); upper == nil || bytes.Compare(u, upper) < 0 {
			upper = u
		}
	}
	return lower, upper
}

func (t *Tablet) rowState(s *snapshot) rowState {
	return rowState{schema: s.schema, now: t.h.now(), snap: s.seq}
}

// Next returns the next row with visible cells.
func (s *Scanner) Next() (base.Row, bool) {
	if s.err != nil || s.rows == nil {
		return base.Row{}, false
	}
	row, cells, ok := s.rows.next()
	if !ok {
		s.err = s.rows.err
		return base.Row{}, false
	}
	return base.Row{Key: row, Cells: plainCells(cells)}, true
}

// Err returns the error that ended the scan, if any.
func (s *Scanner) Err() error { return s.err }

// Close releases the scanner's snapshot.
func (s *Scanner) Close() error {
	if s.snap == nil {
		return s.err
	}
	if s.rows != nil {
		if err := s.rows.close(); err != nil && s.err == nil {
			s.err = err
		}
	}
	s.snap.release()
	s.snap = nil
	return s.err
}

func plainCells(cs []cell) []base.Cell {
	out := make([]base.Cell, len(cs))
	for i := range cs {
		out[i] = cs[i].Cell
	}
	return out
}

// ReadRow reads one row; a row with no visible cells has none.
func (t *Tablet) ReadRow(row []byte) (base.Row, error) {
	if err := ValidateRowKey(row); err != nil {
		return base.Row{}, err
	}
	if !t.Contains(row) {
		return base.Row{}, base.FailedPreconditionf("tablet: row %q is outside %v", row, t)
	}
	snap, err := t.acquire()
	if err != nil {
		return base.Row{}, err
	}
	defer snap.release()
	lower, upper := base.RowPrefix(row), base.RowEnd(row)
	its, err := t.iters(snap, lower, upper, row)
	if err != nil {
		return base.Row{}, err
	}
	ri := newRowIter(newMergingIter(its), lower, upper, false, t.rowState(snap))
	_, cells, _ := ri.next()
	if err := ri.close(); err != nil {
		return base.Row{}, err
	}
	return base.Row{Key: row, Cells: plainCells(cells)}, nil
}
