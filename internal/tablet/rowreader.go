package tablet

import (
	"bytes"
	"fmt"

	"github.com/tabuladb/tabula/internal/aggregate"
	"github.com/tabuladb/tabula/internal/base"
)

// cell is a visible cell and the sequence number that made it.
type cell struct {
	base.Cell
	seq uint64
}

// rowState turns the entries of one row, in key order, into the row's
// visible cells: it applies tombstones by sequence number (a delete masks
// what was written before it, never after), keeps the newest entry of each
// timestamp, folds aggregate inputs, and applies the families' GC rules.
type rowState struct {
	schema *Schema
	now    int64 // microseconds, for max-age rules
	snap   uint64

	rowDel    uint64
	family    string
	famDel    uint64
	famSpec   Family
	famKnown  bool
	limit     int  // the family's GC rule drops versions from limit on
	limited   bool // there is such a limit
	qualifier []byte
	colTombs  []colTomb
	index     int   // versions of the current column seen so far
	lastTS    int64 // timestamp of the last version of the current column
	haveTS    bool
	agg       *aggregate.Folder
	aggDone   bool // the current aggregate cell met its base or a tombstone
	aggSeq    uint64

	cells []cell
	err   error
}

type colTomb struct {
	r   base.TimeRange
	seq uint64
}

func (s *rowState) reset() {
	s.rowDel, s.family, s.famDel, s.famKnown = 0, "\x00", 0, false
	s.resetColumn(nil)
	s.cells = s.cells[:0]
	s.err = nil
}

func (s *rowState) resetColumn(q []byte) {
	s.qualifier = append(s.qualifier[:0], q...)
	s.colTombs = s.colTombs[:0]
	s.index, s.haveTS = 0, false
	s.aggDone = false
	if s.agg != nil {
		s.agg.Reset()
	}
}

// add feeds one entry of the row.
func (s *rowState) add(k *base.Key, value []byte) {
	if k.Seq > s.snap || s.err != nil {
		return
	}
	switch {
	case k.Kind == base.KindDeleteRow:
		s.rowDel = max(s.rowDel, k.Seq)
		return
	case k.Family != s.family:
		s.finishAgg()
		s.enterFamily(k.Family)
		s.resetColumn(k.Qualifier)
	case !bytes.Equal(k.Qualifier, s.qualifier):
		s.finishAgg()
		s.resetColumn(k.Qualifier)
	}
	switch k.Kind {
	case base.KindDeleteFamily:
		s.famDel = max(s.famDel, k.Seq)
	case base.KindDeleteCells:
		r, err := base.DecodeTimeRange(value)
		if err != nil {
			s.err = err
			return
		}
		s.colTombs = append(s.colTombs, colTomb{r, k.Seq})
	default:
		s.addCell(k, value)
	}
}

func (s *rowState) enterFamily(name string) {
	s.family, s.famDel = name, 0
	s.famSpec, s.famKnown = s.schema.Families[name]
	s.limit, s.limited = s.famSpec.GC.VersionLimit()
	if s.famKnown && s.famSpec.Aggregate != aggregate.None {
		s.agg = aggregate.NewFolder(s.famSpec.Aggregate)
	} else {
		s.agg = nil
	}
}

func (s *rowState) masked(k *base.Key) bool {
	if k.Seq < s.rowDel || k.Seq < s.famDel || k.Seq < s.famSpec.Floor {
		return true
	}
	for _, t := range s.colTombs {
		if k.Seq < t.seq && t.r.Contains(k.Timestamp) {
			return true
		}
	}
	return false
}

func (s *rowState) addCell(k *base.Key, value []byte) {
	if !s.famKnown {
		return // the family was dropped
	}
	if s.agg != nil {
		s.addAggregate(k, value)
		return
	}
	if s.haveTS && k.Timestamp == s.lastTS {
		return // an older write of the same version
	}
	s.haveTS, s.lastTS = true, k.Timestamp
	if s.masked(k) {
		return
	}
	s.emit(k.Timestamp, value, k.Seq)
}

func (s *rowState) addAggregate(k *base.Key, value []byte) {
	if !s.haveTS || k.Timestamp != s.lastTS {
		s.finishAgg()
		s.haveTS, s.lastTS, s.aggDone, s.aggSeq = true, k.Timestamp, false, 0
	}
	if s.aggDone {
		return
	}
	if s.masked(k) {
		s.aggDone = true
		return
	}
	var err error
	switch k.Kind {
	case base.KindAggAdd:
		err = s.agg.Add(value)
	case base.KindAggMerge:
		err = s.agg.Merge(value)
	case base.KindPut:
		err = s.agg.Merge(value)
		s.aggDone = true
	}
	if err != nil {
		s.err = fmt.Errorf("tablet: aggregate cell: %w", err)
	}
	s.aggSeq = max(s.aggSeq, k.Seq)
}

// finishAgg emits the aggregate cell being folded, if any.
func (s *rowState) finishAgg() {
	if s.agg == nil || s.agg.Empty() {
		return
	}
	s.emit(s.lastTS, s.agg.Result(), s.aggSeq)
	s.agg.Reset()
}

// emit records a version of the current column, unless its GC rule drops it.
func (s *rowState) emit(ts int64, value []byte, seq uint64) {
	idx := s.index
	s.index++
	if s.famSpec.GC.Drop(idx, ts, s.now) {
		return
	}
	s.cells = append(s.cells, cell{Cell: base.Cell{
		Family:    s.family,
		Qualifier: bytes.Clone(s.qualifier),
		Timestamp: ts,
		Value:     bytes.Clone(value),
	}, seq: seq})
}

// columnDone reports that no entry after k, in k's column, can change the
// row: the column is the current one and its GC rule drops every further
// version. Tombstones of a column sort before its cells, so none is left.
// k may lie in a column add has not entered, when it skipped k as written
// after the snapshot; that column is not done.
func (s *rowState) columnDone(k *base.Key) bool {
	return s.famKnown && s.agg == nil && s.limited && s.index >= s.limit &&
		k.Family == s.family && bytes.Equal(k.Qualifier, s.qualifier)
}

// finish completes the row and returns its cells.
func (s *rowState) finish() ([]cell, error) {
	s.finishAgg()
	return s.cells, s.err
}
