package tablet

import (
	"bytes"
	"fmt"

	"github.com/tabuladb/tabula/internal/base"
)

// rowIter walks the rows of a merged entry stream between two encoded-key
// bounds, forward or in reverse, and yields each row's visible cells. Cells
// within a row are always in forward order.
type rowIter struct {
	it           base.Iterator
	lower, upper []byte // encoded bounds; nil upper = no bound
	reverse      bool
	state        rowState
	started      bool
	valid        bool   // it stands on an entry
	nextUpper    []byte // reverse: rows must lie below this
	err          error
}

func newRowIter(it base.Iterator, lower, upper []byte, reverse bool, st rowState) *rowIter {
	return &rowIter{it: it, lower: lower, upper: upper, reverse: reverse, state: st, nextUpper: upper}
}

func (r *rowIter) inBounds(key []byte) bool {
	return bytes.Compare(key, r.lower) >= 0 && (r.upper == nil || bytes.Compare(key, r.upper) < 0)
}

// next returns the next row that has visible cells.
func (r *rowIter) next() (row []byte, cells []cell, ok bool) {
	for r.err == nil {
		prefix, ok := r.position()
		if !ok {
			break
		}
		row, cells := r.readRow(prefix)
		if len(cells) > 0 && r.err == nil {
			return row, cells, true
		}
	}
	if r.err == nil {
		r.err = r.it.Error()
	}
	return nil, nil, false
}

// position places the iterator on the first entry of the next row and
// returns that row's encoded prefix.
func (r *rowIter) position() ([]byte, bool) {
	if r.reverse {
		return r.positionReverse()
	}
	if !r.started {
		r.started = true
		r.valid = r.it.SeekGE(r.lower)
	}
	if !r.valid || !r.inBounds(r.it.Key()) {
		return nil, false
	}
	return r.rowPrefix(r.it.Key())
}

func (r *rowIter) positionReverse() ([]byte, bool) {
	var ok bool
	if r.nextUpper == nil {
		ok = r.it.Last()
	} else {
		ok = r.it.SeekLT(r.nextUpper)
	}
	if !ok || !r.inBounds(r.it.Key()) {
		return nil, false
	}
	prefix, ok := r.rowPrefix(r.it.Key())
	if !ok {
		return nil, false
	}
	r.nextUpper = prefix
	if !r.it.SeekGE(prefix) {
		r.err = r.it.Error()
		return nil, false
	}
	r.valid = true
	return prefix, true
}

func (r *rowIter) rowPrefix(key []byte) ([]byte, bool) {
	n := base.SplitRow(key)
	if n < 0 {
		r.err = fmt.Errorf("tablet: %w", base.ErrBadKey)
		return nil, false
	}
	return bytes.Clone(key[:n]), true
}

// readRow consumes the entries of the row with the given prefix.
func (r *rowIter) readRow(prefix []byte) ([]byte, []cell) {
	r.state.reset()
	var row []byte
	for r.valid && bytes.HasPrefix(r.it.Key(), prefix) {
		k, err := base.Decode(r.it.Key())
		if err != nil {
			r.err = err
			return nil, nil
		}
		if row == nil {
			row = bytes.Clone(k.Row)
		}
		r.state.add(&k, r.it.Value())
		if r.state.columnDone(&k) {
			r.valid = r.skipColumn()
			continue
		}
		r.valid = r.it.Next()
	}
	if !r.valid {
		r.err = r.it.Error()
	}
	cells, err := r.state.finish()
	if err != nil {
		r.err = err
	}
	return row, cells
}

// skipSteps is how many entries skipColumn steps over before it seeks: a
// seek repositions every merged source, which costs more than a few steps.
const skipSteps = 8

// skipColumn moves past the remaining versions of the column the iterator
// stands on, which the row's GC rule drops: many versions of one hot cell
// would otherwise be read one by one.
func (r *rowIter) skipColumn() bool {
	key := r.it.Key()
	col := bytes.Clone(key[:len(key)-base.TrailerLen])
	for range skipSteps {
		if !r.it.Next() {
			return false
		}
		if k := r.it.Key(); len(k) != len(col)+base.TrailerLen || !bytes.HasPrefix(k, col) {
			return true
		}
	}
	// Past every trailer of the column: the greatest timestamp and trailer
	// encodings are all ones.
	return r.it.SeekGE(append(col, bytes.Repeat([]byte{0xFF}, base.TrailerLen)...))
}

func (r *rowIter) close() error {
	err := r.it.Close()
	if r.err != nil {
		return r.err
	}
	return err
}
