package server_test

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tabuladb/tabula/internal/server"
)

// The RowFilter language (DESIGN §2, Cloud Bigtable's RowFilter), driven
// end to end through the official Go client. The Go client has no
// constructor for sink, so TestFilterSinkRaw sends sink through the
// generated gRPC stub on the same connection.

// filterRows is the data every read case below filters:
//
//	r1: cf:a@3=x3 cf:a@2=x2 cf:a@1=x1 cf:b@1=yy other:z@5=zz
//	r2: cf:a@4=apple cf:c@2=cherry
//	r3: other:z@1=1
var filterRows = []string{
	"r1{cf:a@3=x3 cf:a@2=x2 cf:a@1=x1 cf:b@1=yy other:z@5=zz}",
	"r2{cf:a@4=apple cf:c@2=cherry}",
	"r3{other:z@1=1}",
}

// filterTable creates table name holding filterRows.
func (e *env) filterTable(name string) *bigtable.Table {
	e.t.Helper()
	tbl := e.table(name, "cf", "other")
	for _, c := range []struct {
		row, fam, col string
		ms            int64
		val           string
	}{
		{"r1", "cf", "a", 1, "x1"}, {"r1", "cf", "a", 2, "x2"}, {"r1", "cf", "a", 3, "x3"},
		{"r1", "cf", "b", 1, "yy"}, {"r1", "other", "z", 5, "zz"},
		{"r2", "cf", "a", 4, "apple"}, {"r2", "cf", "c", 2, "cherry"},
		{"r3", "other", "z", 1, "1"},
	} {
		e.set(tbl, c.row, c.fam, c.col, bigtable.Timestamp(c.ms*1000), c.val)
	}
	if got := e.readAll(tbl, bigtable.InfiniteRange("")); !slices.Equal(got, filterRows) {
		e.t.Fatalf("setup: got %q, want %q", got, filterRows)
	}
	return tbl
}

// readErr reads with opts and returns the rows seen and the error.
func (e *env) readErr(tbl *bigtable.Table, rs bigtable.RowSet, opts ...bigtable.ReadOption) ([]string, error) {
	var out []string
	err := tbl.ReadRows(e.ctx(), rs, func(r bigtable.Row) bool {
		out = append(out, rowString(r))
		return true
	}, opts...)
	return out, err
}

// nested returns a filter depth filters deep: chains around a pass_all.
func nested(depth int) bigtable.Filter {
	f := bigtable.PassAllFilter()
	for range depth - 1 {
		f = bigtable.ChainFilters(f)
	}
	return f
}

func TestFilterKinds(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.filterTable("t")
	ms := func(n int64) time.Time { return time.UnixMilli(n) }
	cases := []struct {
		name string
		f    bigtable.Filter
		want []string
	}{
		{"pass_all", bigtable.PassAllFilter(), filterRows},
		{"block_all", bigtable.BlockAllFilter(), nil},
		{"row_key_regex", bigtable.RowKeyFilter("r[12]"), filterRows[:2]},
		{"row_key_regex full match", bigtable.RowKeyFilter("r"), nil},
		{"family_regex", bigtable.FamilyFilter("oth.*"), []string{"r1{other:z@5=zz}", "r3{other:z@1=1}"}},
		{"qualifier_regex", bigtable.ColumnFilter("a"), []string{"r1{cf:a@3=x3 cf:a@2=x2 cf:a@1=x1}", "r2{cf:a@4=apple}"}},
		{"value_regex", bigtable.ValueFilter("x.*"), []string{"r1{cf:a@3=x3 cf:a@2=x2 cf:a@1=x1}"}},
		{"value_regex full match", bigtable.ValueFilter("x"), nil},
		{"column_range", bigtable.ColumnRangeFilter("cf", "b", "c"), []string{"r1{cf:b@1=yy}"}},
		{"column_range open end", bigtable.ColumnRangeFilter("cf", "b", ""), []string{"r1{cf:b@1=yy}", "r2{cf:c@2=cherry}"}},
		{"column_range other family", bigtable.ColumnRangeFilter("other", "", ""), []string{"r1{other:z@5=zz}", "r3{other:z@1=1}"}},
		{"value_range", bigtable.ValueRangeFilter([]byte("b"), []byte("y")),
			[]string{"r1{cf:a@3=x3 cf:a@2=x2 cf:a@1=x1}", "r2{cf:c@2=cherry}"}},
		{"value_range end exclusive", bigtable.ValueRangeFilter([]byte("apple"), []byte("x2")),
			[]string{"r1{cf:a@1=x1}", "r2{cf:a@4=apple cf:c@2=cherry}"}},
		{"timestamp_range", bigtable.TimestampRangeFilter(ms(2), ms(4)),
			[]string{"r1{cf:a@3=x3 cf:a@2=x2}", "r2{cf:c@2=cherry}"}},
		{"timestamp_range micros no end", bigtable.TimestampRangeFilterMicros(4000, 0),
			[]string{"r1{other:z@5=zz}", "r2{cf:a@4=apple}"}},
		{"cells_per_column_limit", bigtable.LatestNFilter(1),
			[]string{"r1{cf:a@3=x3 cf:b@1=yy other:z@5=zz}", "r2{cf:a@4=apple cf:c@2=cherry}", "r3{other:z@1=1}"}},
		{"cells_per_row_limit", bigtable.CellsPerRowLimitFilter(2),
			[]string{"r1{cf:a@3=x3 cf:a@2=x2}", "r2{cf:a@4=apple cf:c@2=cherry}", "r3{other:z@1=1}"}},
		{"cells_per_row_offset", bigtable.CellsPerRowOffsetFilter(3), []string{"r1{cf:b@1=yy other:z@5=zz}"}},
		{"strip_value", bigtable.ChainFilters(bigtable.RowKeyFilter("r2"), bigtable.StripValueFilter()),
			[]string{"r2{cf:a@4= cf:c@2=}"}},
		{"apply_label", bigtable.ChainFilters(bigtable.RowKeyFilter("r3"), bigtable.LabelFilter("lab-1")),
			[]string{"r3{other:z@1=1[lab-1]}"}},
		{"chain", bigtable.ChainFilters(bigtable.FamilyFilter("cf"), bigtable.ColumnFilter("a"), bigtable.LatestNFilter(1)),
			[]string{"r1{cf:a@3=x3}", "r2{cf:a@4=apple}"}},
		{"chain of one", bigtable.ChainFilters(bigtable.ColumnFilter("c")), []string{"r2{cf:c@2=cherry}"}},
		{"interleave", bigtable.InterleaveFilters(bigtable.ColumnFilter("b"), bigtable.ValueFilter("apple|1")),
			[]string{"r1{cf:b@1=yy}", "r2{cf:a@4=apple}", "r3{other:z@1=1}"}},
		{"interleave keeps duplicates", bigtable.InterleaveFilters(bigtable.ColumnFilter("c"), bigtable.ValueFilter("ch.*")),
			[]string{"r2{cf:c@2=cherry cf:c@2=cherry}"}},
		{"condition", bigtable.ConditionFilter(bigtable.ValueFilter("apple"), bigtable.ColumnFilter("c"), bigtable.FamilyFilter("other")),
			[]string{"r1{other:z@5=zz}", "r2{cf:c@2=cherry}", "r3{other:z@1=1}"}},
		{"condition without false", bigtable.ConditionFilter(bigtable.ValueFilter("apple"), bigtable.PassAllFilter(), nil),
			[]string{"r2{cf:a@4=apple cf:c@2=cherry}"}},
		{"condition without true", bigtable.ConditionFilter(bigtable.ValueFilter("apple"), nil, bigtable.ColumnFilter("b")),
			[]string{"r1{cf:b@1=yy}"}},

		// Nested combinations.
		{"condition inside chain",
			bigtable.ChainFilters(bigtable.FamilyFilter("cf"),
				bigtable.ConditionFilter(bigtable.ColumnFilter("c"), bigtable.LatestNFilter(1), bigtable.StripValueFilter())),
			[]string{"r1{cf:a@3= cf:a@2= cf:a@1= cf:b@1=}", "r2{cf:a@4=apple cf:c@2=cherry}"}},
		{"interleave of labelled chains",
			bigtable.InterleaveFilters(
				bigtable.ChainFilters(bigtable.ColumnFilter("a"), bigtable.LatestNFilter(1), bigtable.LabelFilter("new")),
				bigtable.ChainFilters(bigtable.ValueFilter("x1|apple"), bigtable.LabelFilter("val"))),
			[]string{"r1{cf:a@3=x3[new] cf:a@1=x1[val]}", "r2{cf:a@4=apple[new] cf:a@4=apple[val]}"}},
		{"latest n of one column", bigtable.ChainFilters(bigtable.ColumnFilter("a"), bigtable.LatestNFilter(2)),
			[]string{"r1{cf:a@3=x3 cf:a@2=x2}", "r2{cf:a@4=apple}"}},
		{"offset then limit", bigtable.ChainFilters(bigtable.CellsPerRowOffsetFilter(1), bigtable.CellsPerRowLimitFilter(2)),
			[]string{"r1{cf:a@2=x2 cf:a@1=x1}", "r2{cf:c@2=cherry}"}},
		{"time range then latest", bigtable.ChainFilters(bigtable.TimestampRangeFilterMicros(0, 3000), bigtable.LatestNFilter(1)),
			[]string{"r1{cf:a@2=x2 cf:b@1=yy}", "r2{cf:c@2=cherry}", "r3{other:z@1=1}"}},
		{"label in predicate does not count", bigtable.ChainFilters(
			bigtable.ConditionFilter(bigtable.LabelFilter("p"), bigtable.ColumnFilter("b"), nil), bigtable.LabelFilter("q")),
			[]string{"r1{cf:b@1=yy[q]}"}},
		{"strip then value regex", bigtable.ChainFilters(bigtable.StripValueFilter(), bigtable.ValueFilter("x.*")), nil},
		{"strip then empty value regex", bigtable.ChainFilters(bigtable.RowKeyFilter("r3"), bigtable.StripValueFilter(), bigtable.ValueFilter("")),
			[]string{"r3{other:z@1=}"}},
		{"latest after interleave duplicates",
			bigtable.ChainFilters(bigtable.InterleaveFilters(bigtable.ColumnFilter("c"), bigtable.ColumnFilter("c")), bigtable.LatestNFilter(1)),
			[]string{"r2{cf:c@2=cherry}"}},
		{"timestamp_range unbounded start", bigtable.TimestampRangeFilter(time.Time{}, ms(2)),
			[]string{"r1{cf:a@1=x1 cf:b@1=yy}", "r3{other:z@1=1}"}},
		{"depth 20", nested(20), filterRows},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := e.readAll(tbl, bigtable.InfiniteRange(""), bigtable.RowFilter(c.f))
			if !slices.Equal(got, c.want) {
				t.Errorf("%s:\n got %q\nwant %q", c.f, got, c.want)
			}
		})
	}
}

func TestFilterReadOptions(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.filterTable("t")
	all := bigtable.InfiniteRange("")
	cases := []struct {
		name string
		rs   bigtable.RowSet
		opts []bigtable.ReadOption
		want []string
	}{
		{"reversed", all, []bigtable.ReadOption{bigtable.ReverseScan(), bigtable.RowFilter(bigtable.ColumnFilter("a"))},
			[]string{"r2{cf:a@4=apple}", "r1{cf:a@3=x3 cf:a@2=x2 cf:a@1=x1}"}},
		{"reversed condition", all, []bigtable.ReadOption{bigtable.ReverseScan(),
			bigtable.RowFilter(bigtable.ConditionFilter(bigtable.FamilyFilter("other"), bigtable.LatestNFilter(1), nil))},
			[]string{"r3{other:z@1=1}", "r1{cf:a@3=x3 cf:b@1=yy other:z@5=zz}"}},
		// rows_limit counts the rows returned, not the rows the filter saw.
		{"limit after dropped row", all, []bigtable.ReadOption{bigtable.LimitRows(2), bigtable.RowFilter(bigtable.ValueFilter("apple|1"))},
			[]string{"r2{cf:a@4=apple}", "r3{other:z@1=1}"}},
		{"limit with block all", all, []bigtable.ReadOption{bigtable.LimitRows(1), bigtable.RowFilter(bigtable.BlockAllFilter())}, nil},
		{"reversed limit after dropped row", all, []bigtable.ReadOption{bigtable.ReverseScan(), bigtable.LimitRows(1),
			bigtable.RowFilter(bigtable.FamilyFilter("cf"))},
			[]string{"r2{cf:a@4=apple cf:c@2=cherry}"}},
		// Cells inside a row keep their order in a reversed scan.
		{"reversed cells_per_row_limit", all, []bigtable.ReadOption{bigtable.ReverseScan(), bigtable.RowFilter(bigtable.CellsPerRowLimitFilter(1))},
			[]string{"r3{other:z@1=1}", "r2{cf:a@4=apple}", "r1{cf:a@3=x3}"}},
		{"reversed interleave duplicates", bigtable.NewRange("r1", "r3"), []bigtable.ReadOption{bigtable.ReverseScan(),
			bigtable.RowFilter(bigtable.InterleaveFilters(bigtable.LatestNFilter(1), bigtable.ColumnFilter("b")))},
			[]string{"r2{cf:a@4=apple cf:c@2=cherry}", "r1{cf:a@3=x3 cf:b@1=yy cf:b@1=yy other:z@5=zz}"}},
		{"row list and filter", bigtable.RowList{"r3", "r1"}, []bigtable.ReadOption{bigtable.RowFilter(bigtable.CellsPerRowLimitFilter(1))},
			[]string{"r1{cf:a@3=x3}", "r3{other:z@1=1}"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := e.readAll(tbl, c.rs, c.opts...); !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}

	t.Run("ReadRow", func(t *testing.T) {
		r, err := tbl.ReadRow(e.ctx(), "r1", bigtable.RowFilter(bigtable.ChainFilters(bigtable.ColumnFilter("b"), bigtable.StripValueFilter())))
		if err != nil || rowString(r) != "r1{cf:b@1=}" {
			t.Errorf("ReadRow r1: %v %q", err, rowString(r))
		}
		r, err = tbl.ReadRow(e.ctx(), "r3", bigtable.RowFilter(bigtable.FamilyFilter("cf")))
		if err != nil || len(r) != 0 {
			t.Errorf("ReadRow r3 filtered out: %v %q, want no row", err, rowString(r))
		}
	})
}

func TestFilterBinary(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.table("bin", "cf")
	e.set(tbl, "\xffkey", "cf", "q\xfe", 1000, "\xfe\x00\xff")
	e.set(tbl, "a\x00b", "cf", "q", 1000, "line\nbreak")
	e.set(tbl, "plain", "cf", "q", 1000, "text")
	keys := func(rows []string) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r[:strings.IndexByte(r, '{')])
		}
		return out
	}
	cases := []struct {
		name string
		f    bigtable.Filter
		want []string // row keys
	}{
		{`key \C`, bigtable.RowKeyFilter(`\Ckey`), []string{"\xffkey"}},
		{"key dot", bigtable.RowKeyFilter(`.key`), []string{"\xffkey"}},
		{"key raw byte", bigtable.RowKeyFilter("\xff.*"), []string{"\xffkey"}},
		{`key \xff escape`, bigtable.RowKeyFilter(`\xff.+`), []string{"\xffkey"}},
		{"key dot matches NUL", bigtable.RowKeyFilter(`a.b`), []string{"a\x00b"}},
		{"key class of high bytes", bigtable.RowKeyFilter(`[\x80-\xff].*`), []string{"\xffkey"}},
		{"qualifier raw byte", bigtable.ColumnFilter("q\xfe"), []string{"\xffkey"}},
		{`value \C`, bigtable.ValueFilter(`\xfe\C\xff`), []string{"\xffkey"}},
		{"value three bytes", bigtable.ValueFilter(`...`), []string{"\xffkey"}},
		{"value dot skips newline", bigtable.ValueFilter(`line.break`), nil},
		{`value \C matches newline`, bigtable.ValueFilter(`line\Cbreak`), []string{"a\x00b"}},
		{"value range binary", bigtable.ValueRangeFilter([]byte("\xfe"), nil), []string{"\xffkey"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := keys(e.readAll(tbl, bigtable.InfiniteRange(""), bigtable.RowFilter(c.f)))
			if !slices.Equal(got, c.want) {
				t.Errorf("%q: got %q, want %q", c.f.String(), got, c.want)
			}
		})
	}
	r, err := tbl.ReadRow(e.ctx(), "\xffkey", bigtable.RowFilter(bigtable.ValueFilter(`\C*`)))
	if want := "\xffkey{cf:q\xfe@1=\xfe\x00\xff}"; err != nil || rowString(r) != want {
		t.Errorf("ReadRow binary: %v %q, want %q", err, rowString(r), want)
	}
}

func TestFilterRowSample(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.table("t", "cf")
	const n = 200
	keys := make([]string, n)
	muts := make([]*bigtable.Mutation, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("row%03d", i)
		muts[i] = bigtable.NewMutation()
		muts[i].Set("cf", "c", 1000, []byte("v"))
	}
	if errs, err := tbl.ApplyBulk(e.ctx(), keys, muts); err != nil || errs != nil {
		t.Fatalf("ApplyBulk: %v %v", err, errs)
	}
	count := func(p float64) int {
		return len(e.readAll(tbl, bigtable.InfiniteRange(""), bigtable.RowFilter(bigtable.RowSampleFilter(p))))
	}
	// Binomial(200, 0.01) exceeds 20 and Binomial(200, 0.99) falls below
	// 180 with probability far below 1e-9.
	if got := count(0.01); got > 20 {
		t.Errorf("p=0.01: %d of %d rows, want at most 20", got, n)
	}
	if got := count(0.99); got < 180 {
		t.Errorf("p=0.99: %d of %d rows, want at least 180", got, n)
	}
	if got := count(0.5); got < 40 || got > 160 {
		t.Errorf("p=0.5: %d of %d rows, want 40..160", got, n)
	}
}

func TestFilterCheckAndMutate(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.filterTable("t")
	branch := func(v string) *bigtable.Mutation {
		m := bigtable.NewMutation()
		m.Set("cf", "d", 9000, []byte(v))
		return m
	}
	cases := []struct {
		name    string
		row     string
		pred    bigtable.Filter
		matched bool
		want    string // the row's cf:d cells afterwards
	}{
		{"value regex true", "r2", bigtable.ValueFilter("apple"), true, "cf:d@9=T"},
		{"value regex false", "r1", bigtable.ValueFilter("apple"), false, "cf:d@9=F"},
		{"chain with time range false", "r3", bigtable.ChainFilters(bigtable.FamilyFilter("other"), bigtable.TimestampRangeFilterMicros(2000, 0)), false, "cf:d@9=F"},
		{"no predicate, row has cells", "r3", nil, true, "cf:d@9=T"},
		{"no predicate, missing row", "new1", nil, false, "cf:d@9=F"},
		{"interleave true", "r3", bigtable.InterleaveFilters(bigtable.BlockAllFilter(), bigtable.ColumnFilter("z")), true, "cf:d@9=T"},
		{"condition in predicate", "r1",
			bigtable.ConditionFilter(bigtable.ColumnFilter("b"), bigtable.BlockAllFilter(), bigtable.PassAllFilter()), false, "cf:d@9=F"},
		{"strip value predicate true", "r2", bigtable.ChainFilters(bigtable.ColumnFilter("c"), bigtable.StripValueFilter()), true, "cf:d@9=T"},
		{"missing row", "nope", bigtable.PassAllFilter(), false, "cf:d@9=F"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			del := bigtable.NewMutation()
			del.DeleteCellsInColumn("cf", "d")
			if err := tbl.Apply(e.ctx(), c.row, del); err != nil {
				t.Fatal(err)
			}
			var matched bool
			m := bigtable.NewCondMutation(c.pred, branch("T"), branch("F"))
			if err := tbl.Apply(e.ctx(), c.row, m, bigtable.GetCondMutationResult(&matched)); err != nil {
				t.Fatalf("CheckAndMutateRow: %v", err)
			}
			if matched != c.matched {
				t.Errorf("matched = %v, want %v", matched, c.matched)
			}
			r, err := tbl.ReadRow(e.ctx(), c.row, bigtable.RowFilter(bigtable.ColumnFilter("d")))
			if want := c.row + "{" + c.want + "}"; err != nil || rowString(r) != want {
				t.Errorf("after: %v %q, want %q", err, rowString(r), want)
			}
		})
	}
}

func TestFilterInvalid(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.filterTable("t")
	cases := []struct {
		name string
		f    bigtable.Filter
	}{
		{"bad row key regex", bigtable.RowKeyFilter("a(b")},
		{"bad qualifier regex", bigtable.ColumnFilter("[")},
		{"bad value regex nested", bigtable.ChainFilters(bigtable.PassAllFilter(), bigtable.ValueFilter(`\`))},
		{"family regex with colon", bigtable.FamilyFilter("cf:a")},
		{"depth 21", nested(21)},
		{"depth 21 in condition", bigtable.ConditionFilter(nested(20), nil, nil)},
		{"label with bad characters", bigtable.LabelFilter("Bad Label!")},
		{"label too long", bigtable.LabelFilter("abcdefghijklmnop")},
		{"empty label", bigtable.LabelFilter("")},
		{"two labels in a chain", bigtable.ChainFilters(bigtable.LabelFilter("a"), bigtable.LabelFilter("b"))},
		{"column range start after end", bigtable.ColumnRangeFilter("cf", "z", "a")},
		{"column range without family", bigtable.ColumnRangeFilter("", "a", "b")},
		{"value range start after end", bigtable.ValueRangeFilter([]byte("z"), []byte("a"))},
		{"timestamp range start after end", bigtable.TimestampRangeFilterMicros(5000, 1000)},
		{"filter over 20 KiB", bigtable.ValueFilter(strings.Repeat("a", 21<<10))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.readAll(tbl, bigtable.InfiniteRange(""))
			rows, err := e.readErr(tbl, bigtable.InfiniteRange(""), bigtable.RowFilter(c.f))
			if status.Code(err) != codes.InvalidArgument || len(rows) != 0 {
				t.Errorf("ReadRows: %v, %d rows; want InvalidArgument and none", err, len(rows))
			}
			_, err = tbl.ReadRow(e.ctx(), "r1", bigtable.RowFilter(c.f))
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("ReadRow: %v, want InvalidArgument", err)
			}
			m := bigtable.NewMutation()
			m.Set("cf", "bad", 1000, []byte("x"))
			err = tbl.Apply(e.ctx(), "r1", bigtable.NewCondMutation(c.f, m, m))
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("CheckAndMutateRow: %v, want InvalidArgument", err)
			}
			if got := e.readAll(tbl, bigtable.InfiniteRange("")); !slices.Equal(got, before) {
				t.Errorf("table changed: got %q, want %q", got, before)
			}
		})
	}
}

// TestFilterSinkRaw covers sink, which the Go client cannot build, through
// the generated stub.
func TestFilterSinkRaw(t *testing.T) {
	e := start(t, server.Options{})
	e.filterTable("t")
	stub := btpb.NewBigtableClient(e.conn)
	name := fmt.Sprintf("projects/%s/instances/%s/tables/t", testProject, testInstance)
	chain := func(fs ...*btpb.RowFilter) *btpb.RowFilter {
		return &btpb.RowFilter{Filter: &btpb.RowFilter_Chain_{Chain: &btpb.RowFilter_Chain{Filters: fs}}}
	}
	interleave := func(fs ...*btpb.RowFilter) *btpb.RowFilter {
		return &btpb.RowFilter{Filter: &btpb.RowFilter_Interleave_{Interleave: &btpb.RowFilter_Interleave{Filters: fs}}}
	}
	sink := &btpb.RowFilter{Filter: &btpb.RowFilter_Sink{Sink: true}}
	pass := &btpb.RowFilter{Filter: &btpb.RowFilter_PassAllFilter{PassAllFilter: true}}
	label := &btpb.RowFilter{Filter: &btpb.RowFilter_ApplyLabelTransformer{ApplyLabelTransformer: "sunk"}}
	colB := &btpb.RowFilter{Filter: &btpb.RowFilter_ColumnQualifierRegexFilter{ColumnQualifierRegexFilter: []byte("b")}}
	read := func(f *btpb.RowFilter, key string) ([]string, error) {
		stream, err := stub.ReadRows(e.ctx(), &btpb.ReadRowsRequest{TableName: name, Filter: f,
			Rows: &btpb.RowSet{RowKeys: [][]byte{[]byte(key)}}})
		if err != nil {
			return nil, err
		}
		return rawCells(stream)
	}

	// Cloud Bigtable's example: every cell labelled by the sink, plus the
	// chain's own output.
	got, err := read(chain(interleave(pass, chain(label, sink)), colB), "r1")
	want := []string{"cf:a@3=x3[sunk]", "cf:a@2=x2[sunk]", "cf:a@1=x1[sunk]", "cf:b@1=yy[sunk]", "cf:b@1=yy", "other:z@5=zz[sunk]"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("sink: %v\n got %q\nwant %q", err, got, want)
	}
	// Sink as the whole filter returns the row unchanged.
	got, err = read(sink, "r2")
	if want := []string{"cf:a@4=apple", "cf:c@2=cherry"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("lone sink: %v got %q, want %q", err, got, want)
	}

	cond := &btpb.RowFilter{Filter: &btpb.RowFilter_Condition_{Condition: &btpb.RowFilter_Condition{
		PredicateFilter: pass, TrueFilter: chain(pass, sink)}}}
	if _, err := read(chain(pass, cond), "r1"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("sink in condition: %v, want InvalidArgument", err)
	}
	false1 := &btpb.RowFilter{Filter: &btpb.RowFilter_Sink{Sink: false}}
	if _, err := read(false1, "r1"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("sink false: %v, want InvalidArgument", err)
	}
	_, err = stub.CheckAndMutateRow(e.ctx(), &btpb.CheckAndMutateRowRequest{TableName: name, RowKey: []byte("r1"),
		PredicateFilter: interleave(sink, cond),
		TrueMutations:   []*btpb.Mutation{{Mutation: &btpb.Mutation_DeleteFromRow_{DeleteFromRow: &btpb.Mutation_DeleteFromRow{}}}}})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("CheckAndMutateRow with sink in condition: %v, want InvalidArgument", err)
	}
	tbl := e.client.Open("t")
	if got := e.readAll(tbl, bigtable.InfiniteRange("")); !slices.Equal(got, filterRows) {
		t.Errorf("table changed: got %q, want %q", got, filterRows)
	}
}

// rawCells renders the cells of a ReadRows stream as fam:qual@tsMillis=value[labels],
// in the order received. Values must fit in one chunk.
func rawCells(stream btpb.Bigtable_ReadRowsClient) ([]string, error) {
	var out []string
	var fam, qual string
	for {
		resp, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		for _, ch := range resp.Chunks {
			if ch.FamilyName != nil {
				fam = ch.FamilyName.Value
			}
			if ch.Qualifier != nil {
				qual = string(ch.Qualifier.Value)
			}
			s := fmt.Sprintf("%s:%s@%d=%s", fam, qual, ch.TimestampMicros/1000, ch.Value)
			if len(ch.Labels) > 0 {
				s += fmt.Sprint(ch.Labels)
			}
			out = append(out, s)
		}
	}
}
