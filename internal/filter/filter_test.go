package filter

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
)

// testRow is the row most tests filter.
var testRow = base.Row{
	Key: []byte("row-1"),
	Cells: []base.Cell{
		{Family: "a", Qualifier: []byte("x"), Timestamp: 30, Value: []byte("v3")},
		{Family: "a", Qualifier: []byte("x"), Timestamp: 20, Value: []byte("v2")},
		{Family: "a", Qualifier: []byte("x"), Timestamp: 10, Value: []byte("v1")},
		{Family: "a", Qualifier: []byte("y"), Timestamp: 20, Value: []byte("w2")},
		{Family: "a", Qualifier: []byte("y"), Timestamp: 5, Value: []byte("w1")},
		{Family: "b", Qualifier: []byte("x"), Timestamp: 15, Value: []byte("z")},
		{Family: "b", Qualifier: []byte("\xff\n"), Timestamp: 25, Value: []byte("\x00\xff\n")},
	},
}

// show renders cells as "family:qualifier@ts=value" with labels in braces;
// bytes that are not printable ASCII are written \xNN.
func show(cells []Cell) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		s := fmt.Sprintf("%s:%s@%d=%s", c.Family, esc(c.Qualifier), c.Timestamp, esc(c.Value))
		if len(c.Labels) > 0 {
			s += "{" + strings.Join(c.Labels, ",") + "}"
		}
		parts[i] = s
	}
	return strings.Join(parts, " ")
}

func esc(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7f {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, `\x%02x`, c)
		}
	}
	return sb.String()
}

// Constructors keep the test tables short.
func chain(fs ...*Filter) *Filter      { return &Filter{Kind: KindChain, Filters: fs} }
func interleave(fs ...*Filter) *Filter { return &Filter{Kind: KindInterleave, Filters: fs} }
func cond(p, t, f *Filter) *Filter {
	return &Filter{Kind: KindCondition, Predicate: p, True: t, False: f}
}
func flag(k Kind) *Filter             { return &Filter{Kind: k, Flag: true} }
func regex(k Kind, re string) *Filter { return &Filter{Kind: k, Regex: []byte(re)} }
func count(k Kind, n int32) *Filter   { return &Filter{Kind: k, N: n} }
func label(l string) *Filter          { return &Filter{Kind: KindApplyLabel, Label: l} }
func sample(p float64) *Filter        { return &Filter{Kind: KindRowSample, Probability: p} }
func timeRange(start, end int64) *Filter {
	return &Filter{Kind: KindTimestampRange, TimeStart: start, TimeEnd: end}
}
func closed(v string) Bound { return Bound{Kind: Closed, Value: []byte(v)} }
func open(v string) Bound   { return Bound{Kind: Open, Value: []byte(v)} }
func valueRange(start, end Bound) *Filter {
	return &Filter{Kind: KindValueRange, Range: Range{start, end}}
}
func columns(fam string, s, e Bound) *Filter {
	return &Filter{Kind: KindColumnRange, Family: fam, Range: Range{s, e}}
}

var (
	pass  = flag(KindPassAll)
	block = flag(KindBlockAll)
	sink  = flag(KindSink)
	strip = flag(KindStripValue)
)

const all = `a:x@30=v3 a:x@20=v2 a:x@10=v1 a:y@20=w2 a:y@5=w1 b:x@15=z b:\xff\x0a@25=\x00\xff\x0a`

type applyCase struct {
	name string
	f    *Filter
	want string
}

func runApply(t *testing.T, cases []applyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.f)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			got := p.Apply(testRow, func() float64 { return 0.5 })
			if s := show(got); s != tc.want {
				t.Errorf("Apply:\n got  %s\n want %s", s, tc.want)
			}
			if m := p.Matches(testRow, func() float64 { return 0.5 }); m != (tc.want != "") {
				t.Errorf("Matches = %v, want %v", m, tc.want != "")
			}
		})
	}
}

func TestLeafFilters(t *testing.T) {
	runApply(t, []applyCase{
		{"nil", nil, all},
		{"none", &Filter{}, all},
		{"pass_all", pass, all},
		{"block_all", block, ""},
		{"sink alone", sink, all},
		{"row_key_regex match", regex(KindRowKeyRegex, `row-\d`), all},
		{"row_key_regex is a full match", regex(KindRowKeyRegex, `row`), ""},
		{"row_sample kept", sample(0.6), all},
		{"row_sample dropped", sample(0.4), ""},
		{"family_name_regex", regex(KindFamilyRegex, `b`), `b:x@15=z b:\xff\x0a@25=\x00\xff\x0a`},
		{"family_name_regex full match", regex(KindFamilyRegex, `a|c`), `a:x@30=v3 a:x@20=v2 a:x@10=v1 a:y@20=w2 a:y@5=w1`},
		{"column_qualifier_regex", regex(KindQualifierRegex, `x`), `a:x@30=v3 a:x@20=v2 a:x@10=v1 b:x@15=z`},
		{"column_qualifier_regex dot skips newline", regex(KindQualifierRegex, `..`), ``},
		{"column_qualifier_regex \\C", regex(KindQualifierRegex, `\C\C`), `b:\xff\x0a@25=\x00\xff\x0a`},
		{"column_qualifier_regex raw byte", regex(KindQualifierRegex, `\xff\n`), `b:\xff\x0a@25=\x00\xff\x0a`},
		{"column_range closed", columns("a", closed("x"), closed("y")), `a:x@30=v3 a:x@20=v2 a:x@10=v1 a:y@20=w2 a:y@5=w1`},
		{"column_range open start", columns("a", open("x"), Bound{}), `a:y@20=w2 a:y@5=w1`},
		{"column_range open end", columns("a", Bound{}, open("y")), `a:x@30=v3 a:x@20=v2 a:x@10=v1`},
		{"column_range other family", columns("b", closed("x"), closed("x")), `b:x@15=z`},
		{"column_range empty open", columns("a", open("x"), open("x")), ``},
		{"timestamp_range", timeRange(10, 25), `a:x@20=v2 a:x@10=v1 a:y@20=w2 b:x@15=z`},
		{"timestamp_range no end", timeRange(20, 0), `a:x@30=v3 a:x@20=v2 a:y@20=w2 b:\xff\x0a@25=\x00\xff\x0a`},
		{"value_regex", regex(KindValueRegex, `v[12]`), `a:x@20=v2 a:x@10=v1`},
		{"value_regex substring does not match", regex(KindValueRegex, `v`), ``},
		{"value_regex binary", regex(KindValueRegex, `\x00\C+`), `b:\xff\x0a@25=\x00\xff\x0a`},
		{"value_range closed", valueRange(closed("v2"), closed("w1")), `a:x@30=v3 a:x@20=v2 a:y@5=w1`},
		{"value_range open", valueRange(open("v2"), open("w1")), `a:x@30=v3`},
		{"value_range unbounded start includes empty", valueRange(Bound{}, open("v2")), `a:x@10=v1 b:\xff\x0a@25=\x00\xff\x0a`},
		{"cells_per_row_offset", count(KindCellsPerRowOffset, 5), `b:x@15=z b:\xff\x0a@25=\x00\xff\x0a`},
		{"cells_per_row_offset zero", count(KindCellsPerRowOffset, 0), all},
		{"cells_per_row_offset past end", count(KindCellsPerRowOffset, 7), ``},
		{"cells_per_row_limit", count(KindCellsPerRowLimit, 2), `a:x@30=v3 a:x@20=v2`},
		{"cells_per_row_limit past end", count(KindCellsPerRowLimit, 100), all},
		{"cells_per_column_limit", count(KindCellsPerColumnLimit, 1), `a:x@30=v3 a:y@20=w2 b:x@15=z b:\xff\x0a@25=\x00\xff\x0a`},
		{"cells_per_column_limit 2", count(KindCellsPerColumnLimit, 2), `a:x@30=v3 a:x@20=v2 a:y@20=w2 a:y@5=w1 b:x@15=z b:\xff\x0a@25=\x00\xff\x0a`},
		{"strip_value", chain(regex(KindFamilyRegex, "b"), strip), `b:x@15= b:\xff\x0a@25=`},
		{"apply_label", chain(regex(KindQualifierRegex, "y"), label("yy")), `a:y@20=w2{yy} a:y@5=w1{yy}`},
		{"value_bitmask", &Filter{Kind: KindValueBitmask, Mask: []byte("v\x01")}, `a:x@30=v3 a:x@10=v1 a:y@5=w1`},
	})
}

func TestComposites(t *testing.T) {
	famA := regex(KindFamilyRegex, "a")
	runApply(t, []applyCase{
		{"chain narrows", chain(famA, regex(KindQualifierRegex, "y"), count(KindCellsPerColumnLimit, 1)), `a:y@20=w2`},
		{"chain order matters: limit then filter", chain(count(KindCellsPerRowLimit, 2), regex(KindValueRegex, "v2")), `a:x@20=v2`},
		{"chain order matters: filter then limit", chain(regex(KindQualifierRegex, "y"), count(KindCellsPerRowLimit, 1)), `a:y@20=w2`},
		{"chain of one", chain(famA), `a:x@30=v3 a:x@20=v2 a:x@10=v1 a:y@20=w2 a:y@5=w1`},
		{"interleave union in row order", interleave(regex(KindValueRegex, "z"), timeRange(20, 21)), `a:x@20=v2 a:y@20=w2 b:x@15=z`},
		{"interleave keeps duplicates", interleave(regex(KindValueRegex, "v2"), regex(KindQualifierRegex, "x"), block), `a:x@30=v3 a:x@20=v2 a:x@20=v2 a:x@10=v1 b:x@15=z`},
		{"interleave of chains with labels", interleave(
			chain(regex(KindValueRegex, "v.*"), count(KindCellsPerColumnLimit, 1), label("newest")),
			chain(regex(KindQualifierRegex, "x"), label("x")),
		), `a:x@30=v3{newest} a:x@30=v3{x} a:x@20=v2{x} a:x@10=v1{x} b:x@15=z{x}`},
		{"limit counts interleave duplicates", chain(interleave(pass, pass), count(KindCellsPerRowLimit, 3)), `a:x@30=v3 a:x@30=v3 a:x@20=v2`},
		{"column limit counts duplicates", chain(interleave(pass, pass), count(KindCellsPerColumnLimit, 1), famA), `a:x@30=v3 a:y@20=w2`},
		{"offset counts duplicates", chain(famA, interleave(pass, pass), count(KindCellsPerRowOffset, 9)), `a:y@5=w1`},
		{"condition true", cond(regex(KindValueRegex, "z"), famA, block), `a:x@30=v3 a:x@20=v2 a:x@10=v1 a:y@20=w2 a:y@5=w1`},
		{"condition false", cond(regex(KindValueRegex, "nope"), famA, regex(KindFamilyRegex, "b")), `b:x@15=z b:\xff\x0a@25=\x00\xff\x0a`},
		{"condition missing true", cond(pass, nil, pass), ``},
		{"condition missing false", cond(block, pass, nil), ``},
		{"condition sees its input, not the row", chain(famA, cond(regex(KindValueRegex, "z"), pass, strip)), `a:x@30= a:x@20= a:x@10= a:y@20= a:y@5=`},
		{"condition inside chain", chain(regex(KindQualifierRegex, "x"), cond(timeRange(30, 0), count(KindCellsPerColumnLimit, 1), block)), `a:x@30=v3 b:x@15=z`},
		{"condition predicate labels do not leak", cond(label("p"), regex(KindValueRegex, "z"), nil), `b:x@15=z`},
		{"condition with labelled branches in chain", chain(famA, cond(regex(KindQualifierRegex, "y"), label("t"), label("f")), count(KindCellsPerRowLimit, 1)), `a:x@30=v3{t}`},
	})
}

func TestSink(t *testing.T) {
	runApply(t, []applyCase{
		// RowFilter.sink documentation: a copy of every cell that reaches
		// the sink is in the result, even one a later filter drops.
		{"documented example", chain(
			regex(KindFamilyRegex, "a"),
			interleave(pass, chain(label("foo"), sink)),
			regex(KindQualifierRegex, "y"),
		), `a:x@30=v3{foo} a:x@20=v2{foo} a:x@10=v1{foo} a:y@20=w2{foo} a:y@20=w2 a:y@5=w1{foo} a:y@5=w1`},
		{"sink in chain bypasses the rest", chain(regex(KindFamilyRegex, "b"), sink, block), `b:x@15=z b:\xff\x0a@25=\x00\xff\x0a`},
		{"sink outputs nothing to its parent", chain(sink, pass), all},
		{"sink in interleave", interleave(chain(count(KindCellsPerRowLimit, 1), sink), regex(KindValueRegex, "v3")), `a:x@30=v3 a:x@30=v3`},
		{"sink after empty input", chain(block, sink), ``},
		{"two sinks", interleave(chain(regex(KindValueRegex, "z"), sink), chain(regex(KindValueRegex, "z"), label("l"), sink)), `b:x@15=z b:x@15=z{l}`},
	})
}

func TestRowSampleOncePerRow(t *testing.T) {
	p, err := Compile(sample(0.5))
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	rnd := func() float64 { calls++; return 0.1 }
	if got := p.Apply(testRow, rnd); len(got) != len(testRow.Cells) {
		t.Errorf("kept %d cells, want the whole row", len(got))
	}
	if calls != 1 {
		t.Errorf("rnd called %d times, want 1", calls)
	}
	if got := p.Apply(testRow, nil); len(got) != len(testRow.Cells) {
		t.Errorf("nil rnd kept %d cells, want the whole row", len(got))
	}
}

func TestApplyLeavesRowAlone(t *testing.T) {
	before := show(toCells(testRow.Cells))
	p, err := Compile(interleave(strip, chain(label("l"), count(KindCellsPerRowOffset, 2)), sink))
	if err != nil {
		t.Fatal(err)
	}
	p.Apply(testRow, nil)
	if after := show(toCells(testRow.Cells)); after != before {
		t.Errorf("row changed:\n%s\n%s", before, after)
	}
}

func TestPassesAll(t *testing.T) {
	for _, tc := range []struct {
		f    *Filter
		want bool
	}{
		{nil, true},
		{&Filter{}, true},
		{pass, true},
		{chain(pass, &Filter{}), true},
		{block, false},
		{interleave(pass, pass), false},
		{sink, false},
	} {
		p, err := Compile(tc.f)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.PassesAll(); got != tc.want {
			t.Errorf("PassesAll(%v) = %v, want %v", tc.f, got, tc.want)
		}
	}
}

func toCells(cs []base.Cell) []Cell {
	out := make([]Cell, len(cs))
	for i, c := range cs {
		out[i] = Cell{Cell: c}
	}
	return out
}

func TestEmptyRow(t *testing.T) {
	p, err := Compile(pass)
	if err != nil {
		t.Fatal(err)
	}
	if p.Matches(base.Row{Key: []byte("k")}, nil) {
		t.Error("an empty row matched")
	}
	if got := slices.Clip(p.Apply(base.Row{Key: []byte("k")}, nil)); len(got) != 0 {
		t.Errorf("got %v", got)
	}
}

func BenchmarkApply(b *testing.B) {
	var row base.Row
	row.Key = []byte("bench-row")
	for q := range 20 {
		for ts := range 5 {
			row.Cells = append(row.Cells, base.Cell{
				Family: "cf", Qualifier: []byte(fmt.Sprintf("q%02d", q)),
				Timestamp: int64(100 - ts), Value: []byte("value\xff"),
			})
		}
	}
	for _, bc := range []struct {
		name string
		f    *Filter
	}{
		{"pass", pass},
		{"chain", chain(regex(KindFamilyRegex, "cf"), regex(KindQualifierRegex, `q1\d`), count(KindCellsPerColumnLimit, 1))},
		{"value_regex", regex(KindValueRegex, `value\C`)},
		{"interleave", interleave(count(KindCellsPerColumnLimit, 1), chain(timeRange(99, 0), label("l")))},
	} {
		p, err := Compile(bc.f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				p.Apply(row, nil)
			}
		})
	}
}
