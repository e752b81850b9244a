package tablet

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/tabuladb/tabula/internal/base"
)

// CreateTable creates a table with the given schema, as one tablet per
// range between the sorted, distinct split keys.
func (h *Host) CreateTable(name string, schema *Schema, splits [][]byte) error {
	if name == "" {
		return base.InvalidArgf("tablet: empty table name")
	}
	if err := schema.Validate(); err != nil {
		return err
	}
	splits, err := normalizeSplits(splits)
	if err != nil {
		return err
	}
	h.mu.Lock()
	if h.tables[name] != nil {
		h.mu.Unlock()
		return fmt.Errorf("tablet: table %q: %w", name, base.ErrAlreadyExists)
	}
	tb := &table{schema: schema.Clone()}
	for name, f := range tb.schema.Families {
		f.Floor = 0 // the table's tablets are new: no older cells to hide
		tb.schema.Families[name] = f
	}
	bounds := append(append([][]byte{{}}, splits...), nil)
	for i := 0; i+1 < len(bounds); i++ {
		t := h.newTabletLocked(name, bounds[i], bounds[i+1], tb.schema)
		tb.tablets = append(tb.tablets, t)
	}
	h.tables[name] = tb
	h.mu.Unlock()
	return h.persist()
}

func normalizeSplits(splits [][]byte) ([][]byte, error) {
	out := make([][]byte, 0, len(splits))
	for _, s := range splits {
		if err := ValidateRowKey(s); err != nil {
			return nil, fmt.Errorf("tablet: split key: %w", err)
		}
		out = append(out, bytes.Clone(s))
	}
	slices.SortFunc(out, bytes.Compare)
	return slices.CompactFunc(out, bytes.Equal), nil
}

func (h *Host) newTabletLocked(table string, start, end []byte, schema *Schema) *Tablet {
	id := h.nextTablet
	h.nextTablet++
	t := newTablet(h, id, table, start, end, schema)
	t.mem = t.newMemTable(0, h.log.Head())
	h.tablets[id] = t
	return t
}

// DeleteTable removes a table and all its data.
func (h *Host) DeleteTable(name string) error {
	h.mu.Lock()
	tb := h.tables[name]
	if tb == nil {
		h.mu.Unlock()
		return base.NotFoundf("tablet: table %q", name)
	}
	if tb.schema.DeletionProtection {
		h.mu.Unlock()
		return base.FailedPreconditionf("tablet: table %q is protected from deletion", name)
	}
	delete(h.tables, name)
	for _, t := range tb.tablets {
		delete(h.tablets, t.id)
	}
	h.mu.Unlock()
	for _, t := range tb.tablets {
		t.close()
		t.flushMu.Lock() // wait out a running flush
		t.mu.Lock()
		t.vers.unref()
		t.vers = newVersion(nil)
		t.mu.Unlock()
		t.flushMu.Unlock()
	}
	return h.persist()
}

// Tables returns the names of the tables, sorted.
func (h *Host) Tables() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return sortedKeys(h.tables)
}

// TableSchema returns a table's schema. Callers must not modify it.
func (h *Host) TableSchema(name string) (*Schema, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	tb := h.tables[name]
	if tb == nil {
		return nil, base.NotFoundf("tablet: table %q", name)
	}
	return tb.schema, nil
}

// SetSchema replaces a table's schema on all its tablets. A family the
// table did not have gets a floor (Family.Floor) above every cell written
// so far, so that the cells of a dropped family by the same name are not
// seen again; a family it had keeps its floor. Floors given in schema are
// ignored.
func (h *Host) SetSchema(name string, schema *Schema) error {
	if err := schema.Validate(); err != nil {
		return err
	}
	schema = schema.Clone()
	h.mu.Lock()
	tb := h.tables[name]
	if tb == nil {
		h.mu.Unlock()
		return base.NotFoundf("tablet: table %q", name)
	}
	keepFloors(tb.schema, schema)
	setFloorsLocked(tb, schema)
	for _, t := range tb.tablets {
		t.SetSchema(schema)
	}
	tb.schema = schema
	h.mu.Unlock()
	return h.persist()
}

// keepFloors gives the families of s that old has the floors they had: a
// family whose settings change keeps its cells.
func keepFloors(old, s *Schema) {
	for name, f := range s.Families {
		prev, ok := old.Families[name]
		f.Floor = 0
		if ok {
			f.Floor = prev.Floor
		}
		s.Families[name] = f
	}
}

// setFloorsLocked sets the floor of the families s creates, those the
// table's schema lacks, to the table's next sequence number: cells of a
// dropped family by the same name were written below it and stay hidden.
func setFloorsLocked(tb *table, s *Schema) {
	var floor uint64
	for _, t := range tb.tablets {
		t.mu.Lock()
		floor = max(floor, t.nextSeq)
		t.mu.Unlock()
	}
	for name, f := range s.Families {
		if _, ok := tb.schema.Families[name]; !ok {
			f.Floor = floor
			s.Families[name] = f
		}
	}
}

// Tablets returns a table's tablets in row order.
func (h *Host) Tablets(name string) ([]*Tablet, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	tb := h.tables[name]
	if tb == nil {
		return nil, base.NotFoundf("tablet: table %q", name)
	}
	return slices.Clone(tb.tablets), nil
}

// TabletFor returns the tablet of a table that holds row.
func (h *Host) TabletFor(name string, row []byte) (*Tablet, error) {
	ts, err := h.Tablets(name)
	if err != nil {
		return nil, err
	}
	i, _ := slices.BinarySearchFunc(ts, row, func(t *Tablet, row []byte) int { return bytes.Compare(t.start, row) })
	if i == len(ts) || !bytes.Equal(ts[i].start, row) {
		i--
	}
	if i < 0 || !ts[i].Contains(row) {
		return nil, fmt.Errorf("tablet: no tablet of %q holds row %q: %w", name, row, base.ErrUnavailable)
	}
	return ts[i], nil
}

// retry runs op on the tablet that holds row, again if that tablet was
// closed by a split or merge in the meantime.
func (h *Host) retry(name string, row []byte, op func(*Tablet) error) error {
	for {
		t, err := h.TabletFor(name, row)
		if err != nil {
			return err
		}
		err = op(t)
		if !errors.Is(err, base.ErrUnavailable) || !t.isClosed() || h.isClosed() {
			return err
		}
	}
}

func (t *Tablet) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

func (h *Host) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// Apply applies a row mutation to the table's tablet that holds the row.
func (h *Host) Apply(name string, row []byte, muts []base.Mutation) error {
	if err := ValidateRowKey(row); err != nil {
		return err
	}
	return h.retry(name, row, func(t *Tablet) error { return t.Apply(row, muts) })
}

// ReadRow reads one row of a table.
func (h *Host) ReadRow(name string, row []byte) (base.Row, error) {
	if err := ValidateRowKey(row); err != nil {
		return base.Row{}, err
	}
	var r base.Row
	err := h.retry(name, row, func(t *Tablet) (err error) {
		r, err = t.ReadRow(row)
		return err
	})
	return r, err
}

// Scan calls fn with each row of the table in [o.Start, o.End), tablet by
// tablet, until fn returns false. A tablet split or merged during the scan
// is read again from where the scan stood.
func (h *Host) Scan(name string, o ScanOptions, fn func(base.Row) bool) error {
	for {
		last, done, err := h.scanOnce(name, o, fn)
		if done || !errors.Is(err, base.ErrUnavailable) || h.isClosed() {
			return err
		}
		if last != nil {
			if o.Reverse {
				o.End = last
			} else {
				o.Start = append(bytes.Clone(last), 0)
			}
		}
	}
}

// scanOnce scans the tablets the table has now; it returns the last row it
// passed to fn and whether the scan is complete.
func (h *Host) scanOnce(name string, o ScanOptions, fn func(base.Row) bool) (last []byte, done bool, err error) {
	ts, err := h.Tablets(name)
	if err != nil {
		return nil, true, err
	}
	if o.Reverse {
		slices.Reverse(ts)
	}
	for _, t := range ts {
		if !t.overlaps(o.Start, o.End) {
			continue
		}
		s := t.NewScanner(o)
		for r, ok := s.Next(); ok; r, ok = s.Next() {
			last = r.Key
			if !fn(r) {
				return last, true, s.Close()
			}
		}
		if err := s.Close(); err != nil {
			return last, false, err
		}
	}
	return last, true, nil
}

// overlaps reports whether rows [start, end) meet the tablet's range.
func (t *Tablet) overlaps(start, end []byte) bool {
	if end != nil && bytes.Compare(end, t.start) <= 0 {
		return false
	}
	return t.end == nil || start == nil || bytes.Compare(start, t.end) < 0
}

// ReadModifyWrite applies read-modify-write rules to a row of a table.
func (h *Host) ReadModifyWrite(name string, row []byte, rules []ModifyRule) (base.Row, error) {
	if err := ValidateRowKey(row); err != nil {
		return base.Row{}, err
	}
	var r base.Row
	err := h.retry(name, row, func(t *Tablet) (err error) {
		r, err = t.ReadModifyWrite(row, rules)
		return err
	})
	return r, err
}

// CheckAndMutate runs a conditional mutation on a row of a table.
func (h *Host) CheckAndMutate(name string, row []byte, pred func(base.Row) (bool, error), onTrue, onFalse []base.Mutation) (bool, error) {
	if err := ValidateRowKey(row); err != nil {
		return false, err
	}
	var matched bool
	err := h.retry(name, row, func(t *Tablet) (err error) {
		matched, err = t.CheckAndMutate(row, pred, onTrue, onFalse)
		return err
	})
	return matched, err
}
