package tablet

import (
	"bytes"
	"encoding/binary"

	"github.com/tabuladb/tabula/internal/base"
)

// CheckAndMutate reads the row, asks pred whether it matches, and applies
// onTrue or onFalse, atomically with respect to every other writer of the
// row. It reports what pred answered.
func (t *Tablet) CheckAndMutate(row []byte, pred func(base.Row) (bool, error), onTrue, onFalse []base.Mutation) (bool, error) {
	if err := t.validateBranches(row, onTrue, onFalse); err != nil {
		return false, err
	}
	l := t.rowLock(row)
	l.Lock()
	defer l.Unlock()
	if err := t.settle(l); err != nil {
		return false, err
	}
	r, err := t.ReadRow(row)
	if err != nil {
		return false, err
	}
	matched, err := pred(r)
	if err != nil {
		return false, err
	}
	muts := onFalse
	if matched {
		muts = onTrue
	}
	if len(muts) == 0 {
		return matched, nil
	}
	return matched, t.applyLocked(l, row, muts)
}

// validateBranches checks both branches of a conditional mutation, so a
// bad one fails the request whichever branch the predicate picks.
func (t *Tablet) validateBranches(row []byte, branches ...[]base.Mutation) error {
	s := t.Schema()
	for _, muts := range branches {
		if len(muts) == 0 {
			continue
		}
		if err := t.validate(s, row, muts); err != nil {
			return err
		}
	}
	return nil
}

// ModifyRule is one read-modify-write rule: append to a cell's latest
// value, or add to it as a 64-bit big-endian integer.
type ModifyRule struct {
	Family    string
	Qualifier []byte
	// Append is appended to the latest value when Increment is false.
	Append []byte
	// IsIncrement selects Increment over Append.
	IsIncrement bool
	Increment   int64
}

// ReadModifyWrite applies the rules to the latest cells of their columns,
// atomically, and returns the new cells.
func (t *Tablet) ReadModifyWrite(row []byte, rules []ModifyRule) (base.Row, error) {
	if len(rules) == 0 {
		return base.Row{}, base.InvalidArgf("tablet: no read-modify-write rules")
	}
	l := t.rowLock(row)
	l.Lock()
	defer l.Unlock()
	if err := t.settle(l); err != nil {
		return base.Row{}, err
	}
	cur, err := t.ReadRow(row)
	if err != nil {
		return base.Row{}, err
	}
	g := t.Schema().granularity()
	now := t.h.now() / g * g
	out := base.Row{Key: row}
	muts := make([]base.Mutation, 0, len(rules))
	for _, r := range rules {
		c, err := modify(latestCell(cur, out, r.Family, r.Qualifier), r, now)
		if err != nil {
			return base.Row{}, err
		}
		out.Cells = setCell(out.Cells, c)
		muts = append(muts, base.Mutation{Kind: base.KindPut, Family: c.Family, Qualifier: c.Qualifier, Timestamp: c.Timestamp, Value: c.Value})
	}
	if err := t.applyLocked(l, row, muts); err != nil {
		return base.Row{}, err
	}
	return out, nil
}

// latestCell finds the newest cell of a column, looking first at the cells
// earlier rules of the same request produced.
func latestCell(cur, pending base.Row, family string, qualifier []byte) *base.Cell {
	for _, r := range []base.Row{pending, cur} {
		for i := range r.Cells {
			c := &r.Cells[i]
			if c.Family == family && bytes.Equal(c.Qualifier, qualifier) {
				return c
			}
		}
	}
	return nil
}

func modify(old *base.Cell, r ModifyRule, now int64) (base.Cell, error) {
	c := base.Cell{Family: r.Family, Qualifier: r.Qualifier, Timestamp: now}
	var value []byte
	if old != nil {
		value = old.Value
		c.Timestamp = max(now, old.Timestamp)
	}
	if !r.IsIncrement {
		c.Value = append(bytes.Clone(value), r.Append...)
		return c, nil
	}
	var n int64
	switch len(value) {
	case 0:
		if old != nil {
			return c, base.InvalidArgf("tablet: increment of an empty value in %s:%q", r.Family, r.Qualifier)
		}
	case 8:
		n = int64(binary.BigEndian.Uint64(value))
	default:
		return c, base.InvalidArgf("tablet: increment of a %d-byte value in %s:%q; counters are 8 bytes", len(value), r.Family, r.Qualifier)
	}
	c.Value = binary.BigEndian.AppendUint64(nil, uint64(n+r.Increment))
	return c, nil
}

// setCell replaces the cell of the same column in cells, or adds it.
func setCell(cells []base.Cell, c base.Cell) []base.Cell {
	for i := range cells {
		if cells[i].Family == c.Family && bytes.Equal(cells[i].Qualifier, c.Qualifier) {
			cells[i] = c
			return cells
		}
	}
	return append(cells, c)
}
