package filter

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabuladb/tabula/internal/base"
)

// TestRandomAgainstModel runs random filter trees on random rows and
// compares Apply with a model. Trees are built from per-cell filters, pass,
// block, row key regexes, chains, interleaves and conditions: for those, the
// output holds each input cell some number of times (its multiplicity),
// which the model computes cell by cell. A counting filter may end the tree;
// the model applies it with a map. The seed is printed so a failure replays.
func TestRandomAgainstModel(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for i := 0; i < 2000; i++ {
		row := randomRow(rng)
		f := randomTree(rng, 4)
		if rng.IntN(3) == 0 {
			f = chain(f, randomCounter(rng))
		}
		p, err := Compile(f)
		if err != nil {
			t.Fatalf("iteration %d: Compile(%s): %v", i, describe(f), err)
		}
		got, want := show(p.Apply(row, nil)), show(model(f, row))
		if got != want {
			t.Fatalf("iteration %d, filter %s\nrow  %s\n got  %s\n want %s",
				i, describe(f), show(toCells(row.Cells)), got, want)
		}
	}
}

func randomRow(rng *rand.Rand) base.Row {
	var cells []base.Cell
	for range rng.IntN(12) {
		cells = append(cells, base.Cell{
			Family:    pick(rng, "a", "b", "c"),
			Qualifier: []byte(pick(rng, "", "p", "q", "pq")),
			Timestamp: int64(rng.IntN(6)) * 10,
			Value:     []byte(pick(rng, "", "1", "2", "12", "x")),
		})
	}
	slices.SortFunc(cells, func(a, b base.Cell) int { return compareCells(Cell{Cell: a}, Cell{Cell: b}) })
	cells = slices.CompactFunc(cells, func(a, b base.Cell) bool {
		return compareCells(Cell{Cell: a}, Cell{Cell: b}) == 0
	})
	return base.Row{Key: []byte(pick(rng, "k1", "k2")), Cells: cells}
}

func pick(rng *rand.Rand, s ...string) string { return s[rng.IntN(len(s))] }

func randomBound(rng *rand.Rand) Bound {
	return Bound{Kind: BoundKind(rng.IntN(3)), Value: []byte(pick(rng, "", "1", "2", "p", "q"))}
}

func randomLeaf(rng *rand.Rand) *Filter {
	switch rng.IntN(10) {
	case 0:
		return pick2(rng, pass, block, &Filter{})
	case 1:
		return regex(KindRowKeyRegex, pick(rng, "k1", "k.", "k2|x"))
	case 2:
		return regex(KindFamilyRegex, pick(rng, "a", "b|c", "[ab]", "."))
	case 3:
		return regex(KindQualifierRegex, pick(rng, "", "p", "p.*", "q|pq"))
	case 4:
		return regex(KindValueRegex, pick(rng, "", "1", `\d+`, "x|2"))
	case 5:
		start, end := sortedBounds(rng)
		return columns(pick(rng, "a", "b"), start, end)
	case 6:
		start, end := sortedBounds(rng)
		return valueRange(start, end)
	case 7:
		s := int64(rng.IntN(6)) * 10
		return timeRange(s, pickInt(rng, 0, s, s+10, s+30))
	case 8:
		return &Filter{Kind: KindValueBitmask, Mask: []byte(pick(rng, "", "0", "1", "02"))}
	}
	return pass
}

func pick2(rng *rand.Rand, fs ...*Filter) *Filter { return fs[rng.IntN(len(fs))] }

func pickInt(rng *rand.Rand, v ...int64) int64 { return v[rng.IntN(len(v))] }

func sortedBounds(rng *rand.Rand) (Bound, Bound) {
	a, b := randomBound(rng), randomBound(rng)
	if a.Kind != Unbounded && b.Kind != Unbounded && string(a.Value) > string(b.Value) {
		a.Value, b.Value = b.Value, a.Value
	}
	return a, b
}

func randomTree(rng *rand.Rand, depth int) *Filter {
	if depth == 0 || rng.IntN(3) == 0 {
		return randomLeaf(rng)
	}
	switch rng.IntN(3) {
	case 0:
		return cond(randomTree(rng, depth-1), maybe(rng, depth-1), maybe(rng, depth-1))
	case 1:
		return interleave(randomList(rng, depth-1)...)
	}
	return chain(randomList(rng, depth-1)...)
}

func maybe(rng *rand.Rand, depth int) *Filter {
	if rng.IntN(4) == 0 {
		return nil
	}
	return randomTree(rng, depth)
}

func randomList(rng *rand.Rand, depth int) []*Filter {
	fs := make([]*Filter, 1+rng.IntN(3))
	for i := range fs {
		fs[i] = randomTree(rng, depth)
	}
	return fs
}

func randomCounter(rng *rand.Rand) *Filter {
	n := int32(1 + rng.IntN(4))
	return count(pick2(rng, count(KindCellsPerRowOffset, 0), count(KindCellsPerRowLimit, 0),
		count(KindCellsPerColumnLimit, 0)).Kind, n)
}

// model is the reference evaluator. It tracks how many copies of each row
// cell the filter's input and output hold.
func model(f *Filter, row base.Row) []Cell {
	in := make([]int, len(row.Cells))
	for i := range in {
		in[i] = 1
	}
	var out []Cell
	for i, m := range modelEval(f, row, in) {
		for range m {
			out = append(out, Cell{Cell: row.Cells[i]})
		}
	}
	if f.Kind == KindChain && isCounter(f.Filters[len(f.Filters)-1]) {
		return modelCount(f.Filters[len(f.Filters)-1], out)
	}
	return out
}

func isCounter(f *Filter) bool {
	return f.Kind == KindCellsPerRowOffset || f.Kind == KindCellsPerRowLimit ||
		f.Kind == KindCellsPerColumnLimit
}

// modelEval returns the multiplicities f outputs for the input
// multiplicities in. A counting filter passes here; model applies it
// afterwards.
func modelEval(f *Filter, row base.Row, in []int) []int {
	out := make([]int, len(in))
	switch f.Kind {
	case KindChain:
		copy(out, in)
		for _, sub := range f.Filters {
			out = modelEval(sub, row, out)
		}
	case KindInterleave:
		for _, sub := range f.Filters {
			for i, m := range modelEval(sub, row, in) {
				out[i] += m
			}
		}
	case KindCondition:
		return modelCondition(f, row, in)
	default:
		for i, c := range row.Cells {
			if modelKeeps(f, row, c) {
				out[i] = in[i]
			}
		}
	}
	return out
}

func modelCondition(f *Filter, row base.Row, in []int) []int {
	branch := f.False
	for _, m := range modelEval(f.Predicate, row, in) {
		if m > 0 {
			branch = f.True
		}
	}
	if branch == nil {
		return make([]int, len(in))
	}
	return modelEval(branch, row, in)
}

func modelKeeps(f *Filter, row base.Row, c base.Cell) bool {
	full := func(s string) bool { return regexp.MustCompile(`^(?:` + string(f.Regex) + `)$`).MatchString(s) }
	switch f.Kind {
	case KindBlockAll:
		return false
	case KindRowKeyRegex:
		return full(string(row.Key))
	case KindFamilyRegex:
		return full(c.Family)
	case KindQualifierRegex:
		return full(string(c.Qualifier))
	case KindValueRegex:
		return full(string(c.Value))
	case KindColumnRange:
		return c.Family == f.Family && modelInRange(string(c.Qualifier), f.Range)
	case KindValueRange:
		return modelInRange(string(c.Value), f.Range)
	case KindTimestampRange:
		return c.Timestamp >= f.TimeStart && (f.TimeEnd == 0 || c.Timestamp < f.TimeEnd)
	case KindValueBitmask:
		return modelBitmask(string(c.Value), string(f.Mask))
	}
	return true
}

func modelInRange(s string, r Range) bool {
	lo, hi := string(r.Start.Value), string(r.End.Value)
	return (r.Start.Kind == Unbounded || r.Start.Kind == Closed && s >= lo || r.Start.Kind == Open && s > lo) &&
		(r.End.Kind == Unbounded || r.End.Kind == Closed && s <= hi || r.End.Kind == Open && s < hi)
}

func modelBitmask(v, mask string) bool {
	if len(v) != len(mask) {
		return false
	}
	for i := range len(v) {
		if v[i]&mask[i] != mask[i] {
			return false
		}
	}
	return true
}

func modelCount(f *Filter, cells []Cell) []Cell {
	n := int(f.N)
	switch f.Kind {
	case KindCellsPerRowOffset:
		return cells[min(n, len(cells)):]
	case KindCellsPerRowLimit:
		return cells[:min(n, len(cells))]
	}
	seen := map[string]int{}
	var out []Cell
	for _, c := range cells {
		col := c.Family + ":" + string(c.Qualifier)
		if seen[col]++; seen[col] <= n {
			out = append(out, c)
		}
	}
	return out
}

// describe renders a filter tree for failure messages.
func describe(f *Filter) string {
	if f == nil {
		return "nil"
	}
	switch f.Kind {
	case KindChain, KindInterleave:
		parts := make([]string, len(f.Filters))
		for i, sub := range f.Filters {
			parts[i] = describe(sub)
		}
		return f.Kind.String() + "(" + strings.Join(parts, ", ") + ")"
	case KindCondition:
		return fmt.Sprintf("condition(%s, %s, %s)", describe(f.Predicate), describe(f.True), describe(f.False))
	}
	return fmt.Sprintf("%s(%q %s %d-%d %q %v)", f.Kind, f.Regex, f.Family,
		f.TimeStart, f.TimeEnd, f.Mask, f.Range)
}
