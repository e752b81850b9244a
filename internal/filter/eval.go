package filter

import (
	"bytes"
	"slices"
	"strings"

	"github.com/tabuladb/tabula/internal/base"
)

// Apply runs the program on row and returns the surviving cells, with their
// labels, in row order. An empty result means the row is not returned. The
// cells alias row's qualifiers and values; row is not modified.
//
// rnd returns numbers in [0, 1) for row_sample_filter; it is called only by
// programs that sample. A nil rnd acts as one that always returns 0, so
// every sample keeps its row.
func (p *Program) Apply(row base.Row, rnd func() float64) []Cell {
	in := make([]Cell, len(row.Cells))
	for i := range row.Cells {
		in[i].Cell = row.Cells[i]
	}
	if p == nil || p.root == nil {
		return in
	}
	st := &state{key: row.Key, rnd: rnd}
	out := st.eval(p.root, in)
	if len(st.sink) == 0 {
		return out
	}
	return mergeCells([][]Cell{st.sink, out})
}

// Matches reports whether the program outputs at least one cell of row, as
// CheckAndMutateRow's predicate does. A nil program matches a row with at
// least one cell.
func (p *Program) Matches(row base.Row, rnd func() float64) bool {
	return len(p.Apply(row, rnd)) > 0
}

// PassesAll reports whether the program outputs every cell of every row
// unchanged, so that a reader may skip it.
func (p *Program) PassesAll() bool {
	return p == nil || p.root == nil || p.root.passesAll()
}

func (n *node) passesAll() bool {
	switch n.kind {
	case KindNone, KindPassAll:
		return true
	case KindChain:
		for _, k := range n.kids {
			if !k.passesAll() {
				return false
			}
		}
		return true
	}
	return false
}

// state is the context of one Apply.
type state struct {
	key []byte
	rnd func() float64
	// sink collects the cells that reach a sink.
	sink []Cell
	// scratch holds Latin-1 decodings for regex matches.
	scratch []byte
}

// eval runs n on in. Filters never modify or append to their input; they
// return it, a clipped sub-slice of it, or a new slice.
func (st *state) eval(n *node, in []Cell) []Cell {
	if len(in) == 0 {
		return nil
	}
	switch n.kind {
	case KindNone, KindPassAll:
		return in
	case KindBlockAll:
		return nil
	case KindChain:
		return st.chain(n, in)
	case KindInterleave:
		return st.interleave(n, in)
	case KindCondition:
		return st.condition(n, in)
	case KindSink:
		st.sink = append(st.sink, in...)
		return nil
	case KindRowKeyRegex:
		return keepIf(in, n.re.match(st.key, &st.scratch))
	case KindRowSample:
		return keepIf(in, st.random() < n.p)
	case KindCellsPerRowOffset:
		return slices.Clip(in[min(n.n, len(in)):])
	case KindCellsPerRowLimit:
		return slices.Clip(in[:min(n.n, len(in))])
	case KindCellsPerColumnLimit:
		return columnLimit(in, n.n)
	case KindStripValue:
		return transform(in, func(c *Cell) { c.Value = nil })
	case KindApplyLabel:
		return transform(in, n.applyLabel)
	}
	return st.filterCells(n, in)
}

func keepIf(in []Cell, keep bool) []Cell {
	if keep {
		return in
	}
	return nil
}

func (st *state) random() float64 {
	if st.rnd == nil {
		return 0
	}
	return st.rnd()
}

func (st *state) chain(n *node, in []Cell) []Cell {
	for _, k := range n.kids {
		if in = st.eval(k, in); len(in) == 0 {
			return nil
		}
	}
	return in
}

func (st *state) interleave(n *node, in []Cell) []Cell {
	outs := make([][]Cell, 0, len(n.kids))
	for _, k := range n.kids {
		if out := st.eval(k, in); len(out) > 0 {
			outs = append(outs, out)
		}
	}
	return mergeCells(outs)
}

func (st *state) condition(n *node, in []Cell) []Cell {
	branch := n.kids[2]
	if len(st.eval(n.kids[0], in)) > 0 {
		branch = n.kids[1]
	}
	if branch == nil {
		return nil
	}
	return st.eval(branch, in)
}

// mergeCells merges cell lists, each in row order, into one in row order.
// Equal cells keep the order of the lists.
func mergeCells(lists [][]Cell) []Cell {
	switch len(lists) {
	case 0:
		return nil
	case 1:
		return lists[0]
	}
	out := slices.Concat(lists...)
	slices.SortStableFunc(out, compareCells)
	return out
}

// compareCells orders cells by family ↑, qualifier ↑, timestamp ↓.
func compareCells(a, b Cell) int {
	if c := strings.Compare(a.Family, b.Family); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Qualifier, b.Qualifier); c != 0 {
		return c
	}
	return -compareInt(a.Timestamp, b.Timestamp)
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sameColumn(a, b *Cell) bool {
	return a.Family == b.Family && bytes.Equal(a.Qualifier, b.Qualifier)
}

// columnLimit keeps the first lim cells of each column.
func columnLimit(in []Cell, lim int) []Cell {
	out := make([]Cell, 0, len(in))
	run := 0
	for i := range in {
		if i > 0 && sameColumn(&in[i-1], &in[i]) {
			run++
		} else {
			run = 0
		}
		if run < lim {
			out = append(out, in[i])
		}
	}
	return out
}

// applyLabel adds n's label to c. Cells without labels share one clipped
// slice, so that nothing can append into it.
func (n *node) applyLabel(c *Cell) {
	if len(c.Labels) == 0 {
		c.Labels = n.labelOnly
		return
	}
	c.Labels = append(slices.Clip(c.Labels), n.label)
}

// transform returns a copy of in with fn applied to each cell.
func transform(in []Cell, fn func(*Cell)) []Cell {
	out := slices.Clone(in)
	for i := range out {
		fn(&out[i])
	}
	return out
}
