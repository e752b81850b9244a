package filter

import "bytes"

// filterCells runs a per-cell filter: it keeps the cells n.keep accepts.
// Column-level filters decide once per column. When every cell is kept the
// input itself is returned.
func (st *state) filterCells(n *node, in []Cell) []Cell {
	perColumn := n.kind == KindFamilyRegex || n.kind == KindQualifierRegex ||
		n.kind == KindColumnRange
	var out []Cell
	keep := false
	for i := range in {
		if !perColumn || i == 0 || !sameColumn(&in[i-1], &in[i]) {
			keep = st.keep(n, &in[i])
		}
		switch {
		case keep && out != nil:
			out = append(out, in[i])
		case !keep && out == nil:
			out = append(make([]Cell, 0, len(in)-1), in[:i]...)
		}
	}
	if out == nil {
		return in
	}
	return out
}

// keep reports whether the per-cell filter n passes c.
func (st *state) keep(n *node, c *Cell) bool {
	switch n.kind {
	case KindFamilyRegex:
		return n.re.matchString(c.Family, &st.scratch)
	case KindQualifierRegex:
		return n.re.match(c.Qualifier, &st.scratch)
	case KindValueRegex:
		return n.re.match(c.Value, &st.scratch)
	case KindColumnRange:
		return c.Family == n.family && inRange(c.Qualifier, n.rng)
	case KindValueRange:
		return inRange(c.Value, n.rng)
	case KindTimestampRange:
		return c.Timestamp >= n.tStart && (n.tEnd == 0 || c.Timestamp < n.tEnd)
	case KindValueBitmask:
		return bitmask(c.Value, n.mask)
	}
	return true
}

// inRange reports whether b lies in r. An unbounded start is "" inclusive
// and an unbounded end is infinity.
func inRange(b []byte, r Range) bool {
	switch r.Start.Kind {
	case Closed:
		if bytes.Compare(b, r.Start.Value) < 0 {
			return false
		}
	case Open:
		if bytes.Compare(b, r.Start.Value) <= 0 {
			return false
		}
	}
	switch r.End.Kind {
	case Closed:
		return bytes.Compare(b, r.End.Value) <= 0
	case Open:
		return bytes.Compare(b, r.End.Value) < 0
	}
	return true
}

// bitmask reports whether v has the length of mask and every bit of mask.
func bitmask(v, mask []byte) bool {
	if len(v) != len(mask) {
		return false
	}
	for i := range v {
		if v[i]&mask[i] != mask[i] {
			return false
		}
	}
	return true
}
