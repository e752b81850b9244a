package server_test

import (
	"strings"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"testing"

	"cloud.google.com/go/bigtable"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tabuladb/tabula/internal/server"
)

// DESIGN §2: each limit and each kind of bad input gets a clear status,
// and nothing of the request is applied.
func TestLimitsAndBadInput(t *testing.T) {
	e := start(t, server.Options{})
	ctx := e.ctx()
	tbl := e.table("t", "cf")
	counter := bigtable.NewMutation()
	counter.Set("cf", "short", 1000, []byte("abc"))
	if err := tbl.Apply(ctx, "counter", counter); err != nil {
		t.Fatal(err)
	}
	// set returns a mutation that writes a good cell first, then runs
	// extra, so a half-applied request would leave cf:good behind.
	set := func(extra func(m *bigtable.Mutation)) *bigtable.Mutation {
		m := bigtable.NewMutation()
		m.Set("cf", "good", 1000, []byte("v"))
		extra(m)
		return m
	}
	deep := bigtable.PassAllFilter()
	for range 21 {
		deep = bigtable.ChainFilters(deep, bigtable.PassAllFilter())
	}
	tooMany := bigtable.NewMutation()
	for i := range 100_001 {
		tooMany.Set("cf", "q", bigtable.Timestamp(i*1000), nil)
	}
	cases := []struct {
		name string
		row  string
		call func(row string) error
		want codes.Code
	}{
		{"row key over 4 KiB", strings.Repeat("k", 4097), apply(tbl, set(func(*bigtable.Mutation) {})), codes.InvalidArgument},
		{"empty row key", "", apply(tbl, set(func(*bigtable.Mutation) {})), codes.InvalidArgument},
		{"unknown table", "r1", apply(e.client.Open("nope"), set(func(*bigtable.Mutation) {})), codes.NotFound},
		{"unknown family", "r2", apply(tbl, set(func(m *bigtable.Mutation) { m.Set("nope", "c", 1000, nil) })), codes.NotFound},
		// The official client truncates timestamps and drops empty ranges
		// before sending; its generated stub sends them as they are.
		{"timestamp off the granularity", "r3", rawSet(e, 1001), codes.InvalidArgument},
		{"qualifier over 16 KiB", "r4", apply(tbl, set(func(m *bigtable.Mutation) { m.Set("cf", strings.Repeat("q", 16<<10+1), 1000, nil) })), codes.InvalidArgument},
		{"value over 100 MiB", "r5", apply(tbl, set(func(m *bigtable.Mutation) { m.Set("cf", "big", 1000, make([]byte, 100<<20+1)) })), codes.InvalidArgument},
		{"aggregate input to a plain family", "r6", apply(tbl, set(func(m *bigtable.Mutation) { m.AddIntToCell("cf", "n", 0, 1) })), codes.InvalidArgument},
		{"too many mutations", "r7", apply(tbl, tooMany), codes.InvalidArgument},
		{"wrong-size counter", "counter", func(row string) error {
			m := bigtable.NewReadModifyWrite()
			m.Increment("cf", "short", 1)
			_, err := tbl.ApplyReadModifyWrite(ctx, row, m)
			return err
		}, codes.InvalidArgument},
		{"bad regex", "r8", readWith(tbl, bigtable.RowKeyFilter("a(b")), codes.InvalidArgument},
		{"filter over 20 deep", "r9", readWith(tbl, deep), codes.InvalidArgument},
		{"bad row range", "r10", rawRange(e, "b", "a"), codes.InvalidArgument},
		{"conditional with a bad branch", "r11", apply(tbl, bigtable.NewCondMutation(bigtable.PassAllFilter(), set(func(m *bigtable.Mutation) { m.Set("nope", "c", 1000, nil) }), nil)), codes.NotFound},
	}
	for _, c := range cases {
		err := c.call(c.row)
		if code := status.Code(err); code != c.want {
			t.Errorf("%s: got %v (%v), want %v", c.name, code, err, c.want)
			continue
		}
		if msg := status.Convert(err).Message(); msg == "" {
			t.Errorf("%s: status without a message", c.name)
		}
		if c.row != "" && len(c.row) <= 4096 && c.row != "counter" {
			if r, err := tbl.ReadRow(ctx, c.row); err != nil || len(r) != 0 {
				t.Errorf("%s: row %q holds %v after a failed request (%v)", c.name, c.row, r, err)
			}
		}
	}
}

func apply(tbl *bigtable.Table, m *bigtable.Mutation) func(string) error {
	return func(row string) error { return tbl.Apply(contextFor(), row, m) }
}

func readWith(tbl *bigtable.Table, f bigtable.Filter) func(string) error {
	return func(row string) error {
		_, err := tbl.ReadRow(contextFor(), row, bigtable.RowFilter(f))
		return err
	}
}

// rawSet writes one cell through the generated stub, unchanged.
func rawSet(e *env, ts int64) func(string) error {
	return func(row string) error {
		_, err := btpb.NewBigtableClient(e.conn).MutateRow(contextFor(), &btpb.MutateRowRequest{
			TableName: e.tableName("t"), RowKey: []byte(row),
			Mutations: []*btpb.Mutation{{Mutation: &btpb.Mutation_SetCell_{SetCell: &btpb.Mutation_SetCell{FamilyName: "cf", ColumnQualifier: []byte("c"), TimestampMicros: ts}}}},
		})
		return err
	}
}

// rawRange reads a row range through the generated stub, unchanged.
func rawRange(e *env, start, end string) func(string) error {
	return func(string) error {
		rng := &btpb.RowRange{StartKey: &btpb.RowRange_StartKeyClosed{StartKeyClosed: []byte(start)}, EndKey: &btpb.RowRange_EndKeyOpen{EndKeyOpen: []byte(end)}}
		stream, err := btpb.NewBigtableClient(e.conn).ReadRows(contextFor(), &btpb.ReadRowsRequest{TableName: e.tableName("t"), Rows: &btpb.RowSet{RowRanges: []*btpb.RowRange{rng}}})
		if err != nil {
			return err
		}
		_, err = stream.Recv()
		return err
	}
}
