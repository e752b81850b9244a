package tablet

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/tabuladb/tabula/internal/aggregate"
	"github.com/tabuladb/tabula/internal/base"
)

// model is the plain sorted map the engine must agree with: mutations are
// applied in order to the cells themselves, and GC rules are applied on
// read (and destructively when the engine runs a major compaction).
type model struct {
	rows map[string]map[modelCol]map[int64][]byte // row → column → ts → value
}

type modelCol struct {
	family    string
	qualifier string
}

func newModel() *model { return &model{rows: map[string]map[modelCol]map[int64][]byte{}} }

func (m *model) apply(schema *Schema, row []byte, muts []base.Mutation, now int64) {
	for _, mu := range muts {
		m.applyOne(schema, string(row), mu, now)
	}
}

func (m *model) applyOne(schema *Schema, row string, mu base.Mutation, now int64) {
	cols := m.rows[row]
	switch mu.Kind {
	case base.KindDeleteRow:
		delete(m.rows, row)
		return
	case base.KindDeleteFamily:
		for c := range cols {
			if c.family == mu.Family {
				delete(cols, c)
			}
		}
		return
	case base.KindDeleteCells:
		c := modelCol{mu.Family, string(mu.Qualifier)}
		for ts := range cols[c] {
			if mu.Range.Contains(ts) {
				delete(cols[c], ts)
			}
		}
		return
	}
	if cols == nil {
		cols = map[modelCol]map[int64][]byte{}
		m.rows[row] = cols
	}
	c := modelCol{mu.Family, string(mu.Qualifier)}
	if cols[c] == nil {
		cols[c] = map[int64][]byte{}
	}
	ts := mu.Timestamp
	if ts == base.ServerTimestamp {
		ts = now
	}
	switch mu.Kind {
	case base.KindPut:
		cols[c][ts] = bytes.Clone(mu.Value)
	case base.KindAggAdd, base.KindAggMerge:
		f := aggregate.NewFolder(schema.Families[mu.Family].Aggregate)
		if old, ok := cols[c][ts]; ok {
			must(f.Merge(old))
		}
		if mu.Kind == base.KindAggAdd {
			must(f.Add(mu.Value))
		} else {
			must(f.Merge(mu.Value))
		}
		cols[c][ts] = f.Result()
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// row returns a row's visible cells in read order, GC rules applied at now.
func (m *model) row(schema *Schema, row string, now int64) []base.Cell {
	cols := m.rows[row]
	keys := make([]modelCol, 0, len(cols))
	for c := range cols {
		if _, ok := schema.Families[c.family]; ok {
			keys = append(keys, c)
		}
	}
	slices.SortFunc(keys, func(a, b modelCol) int {
		return cmp.Or(cmp.Compare(a.family, b.family), cmp.Compare(a.qualifier, b.qualifier))
	})
	var cells []base.Cell
	for _, c := range keys {
		tss := make([]int64, 0, len(cols[c]))
		for ts := range cols[c] {
			tss = append(tss, ts)
		}
		slices.SortFunc(tss, func(a, b int64) int { return cmp.Compare(b, a) })
		rule := schema.Families[c.family].GC
		for i, ts := range tss {
			if !rule.Drop(i, ts, now) {
				cells = append(cells, base.Cell{Family: c.family, Qualifier: []byte(c.qualifier), Timestamp: ts, Value: cols[c][ts]})
			}
		}
	}
	return cells
}

// scan returns the rows in [start, end) with visible cells.
func (m *model) scan(schema *Schema, start, end []byte, reverse bool, now int64) []base.Row {
	var keys []string
	for r := range m.rows {
		if r >= string(start) && (end == nil || r < string(end)) {
			keys = append(keys, r)
		}
	}
	slices.Sort(keys)
	if reverse {
		slices.Reverse(keys)
	}
	var rows []base.Row
	for _, k := range keys {
		if cells := m.row(schema, k, now); len(cells) > 0 {
			rows = append(rows, base.Row{Key: []byte(k), Cells: cells})
		}
	}
	return rows
}

// gc drops, for good, the cells of the given families in rows [start, end)
// that the GC rules drop at now: what a major compaction does.
func (m *model) gc(schema *Schema, start, end []byte, families func(string) bool, now int64) {
	for r, cols := range m.rows {
		if r < string(start) || (end != nil && r >= string(end)) {
			continue
		}
		keep := map[modelCol]map[int64]bool{}
		for _, c := range m.row(schema, r, now) {
			mc := modelCol{c.Family, string(c.Qualifier)}
			if keep[mc] == nil {
				keep[mc] = map[int64]bool{}
			}
			keep[mc][c.Timestamp] = true
		}
		for c, versions := range cols {
			if _, known := schema.Families[c.family]; known && !families(c.family) {
				continue
			}
			for ts := range versions {
				if !keep[c][ts] {
					delete(versions, ts)
				}
			}
		}
	}
}

// dropFamily deletes every cell of a family.
func (m *model) dropFamily(family string) {
	for _, cols := range m.rows {
		for c := range cols {
			if c.family == family {
				delete(cols, c)
			}
		}
	}
}
