package server_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"

	"cloud.google.com/go/bigtable"
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"

	"github.com/tabuladb/tabula/internal/server"
)

func TestWriteReadRestart(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.table("t", "cf", "other")
	for i := range 5 {
		e.set(tbl, fmt.Sprintf("row%d", i), "cf", "c", 1000, fmt.Sprintf("v%d", i))
	}
	e.set(tbl, "row1", "other", "x", 2000, "y")
	want := []string{"row0{cf:c@1=v0}", "row1{cf:c@1=v1 other:x@2=y}", "row2{cf:c@1=v2}", "row3{cf:c@1=v3}", "row4{cf:c@1=v4}"}
	if got := e.readAll(tbl, bigtable.InfiniteRange("")); !slices.Equal(got, want) {
		t.Fatalf("read: got %q, want %q", got, want)
	}
	e.restart()
	tbl = e.client.Open("t")
	if got := e.readAll(tbl, bigtable.InfiniteRange("")); !slices.Equal(got, want) {
		t.Fatalf("read after restart: got %q, want %q", got, want)
	}
	r, err := tbl.ReadRow(e.ctx(), "row1")
	if err != nil || rowString(r) != want[1] {
		t.Fatalf("ReadRow: %v %q", err, rowString(r))
	}
}

func TestReadRowSetsAndLimits(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.table("t", "cf")
	for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
		e.set(tbl, k, "cf", "c", 1000, k)
	}
	keys := func(rows []string) string {
		var s string
		for _, r := range rows {
			s += r[:1]
		}
		return s
	}
	cases := []struct {
		name string
		rs   bigtable.RowSet
		opts []bigtable.ReadOption
		want string
	}{
		{"all", bigtable.InfiniteRange(""), nil, "abcdef"},
		{"range", bigtable.NewRange("b", "e"), nil, "bcd"},
		{"closed", bigtable.NewClosedRange("b", "e"), nil, "bcde"},
		{"open", bigtable.NewOpenRange("b", "e"), nil, "cd"},
		{"prefix", bigtable.PrefixRange("c"), nil, "c"},
		{"keys", bigtable.RowList{"f", "a", "zz", "c"}, nil, "acf"},
		{"ranges", bigtable.RowRangeList{bigtable.NewRange("e", ""), bigtable.NewRange("a", "c")}, nil, "abef"},
		{"limit", bigtable.InfiniteRange(""), []bigtable.ReadOption{bigtable.LimitRows(2)}, "ab"},
		{"reverse", bigtable.InfiniteRange(""), []bigtable.ReadOption{bigtable.ReverseScan()}, "fedcba"},
		{"reverse range limit", bigtable.NewRange("b", "f"), []bigtable.ReadOption{bigtable.ReverseScan(), bigtable.LimitRows(2)}, "ed"},
		{"reverse keys", bigtable.RowList{"a", "d", "c"}, []bigtable.ReadOption{bigtable.ReverseScan()}, "dca"},
	}
	for _, c := range cases {
		if got := keys(e.readAll(tbl, c.rs, c.opts...)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestApplyBulkStatusPerEntry(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.table("t", "cf")
	var keys []string
	var muts []*bigtable.Mutation
	for i := range 100 {
		m := bigtable.NewMutation()
		fam := "cf"
		if i%10 == 3 {
			fam = "nope"
		}
		m.Set(fam, "c", 1000, []byte("v"))
		keys = append(keys, fmt.Sprintf("k%03d", i))
		muts = append(muts, m)
	}
	errs, err := tbl.ApplyBulk(e.ctx(), keys, muts)
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, err := range errs {
		if (err != nil) != (i%10 == 3) {
			t.Errorf("entry %d: %v", i, err)
		}
		if err != nil {
			bad++
		}
	}
	if got := len(e.readAll(tbl, bigtable.InfiniteRange(""))); got != 90 || bad != 10 {
		t.Fatalf("rows %d, failed entries %d; want 90, 10", got, bad)
	}
}

// Paper §2: every read or write of one row is atomic. N goroutines
// incrementing one counter k times each end at exactly N×k.
func TestConcurrentReadModifyWrite(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.table("t", "cf")
	const n, k = 8, 50
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range k {
				m := bigtable.NewReadModifyWrite()
				m.Increment("cf", "n", 1)
				m.AppendValue("cf", "log", []byte("x"))
				if _, err := tbl.ApplyReadModifyWrite(e.ctx(), "counter", m); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	r, err := tbl.ReadRow(e.ctx(), "counter", bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range r["cf"] {
		switch it.Column {
		case "cf:n":
			if got := int64(binary.BigEndian.Uint64(it.Value)); got != n*k {
				t.Errorf("counter = %d, want %d", got, n*k)
			}
		case "cf:log":
			if len(it.Value) != n*k {
				t.Errorf("appended %d bytes, want %d", len(it.Value), n*k)
			}
		}
	}
}

// Conditional mutations under concurrency: each of N goroutines claims a
// slot only if it is still free; every slot ends claimed exactly once.
func TestConcurrentCheckAndMutate(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.table("t", "cf")
	const n, slots = 6, 20
	won := make([]int, slots)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range slots {
				claim := bigtable.NewMutation()
				claim.Set("cf", "owner", 1000, []byte{byte(g)})
				cond := bigtable.NewCondMutation(bigtable.ColumnFilter("owner"), nil, claim)
				var matched bool
				if err := tbl.Apply(e.ctx(), fmt.Sprintf("slot%02d", s), cond, bigtable.GetCondMutationResult(&matched)); err != nil {
					t.Error(err)
					return
				}
				if !matched {
					mu.Lock()
					won[s]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for s, w := range won {
		if w != 1 {
			t.Errorf("slot %d claimed %d times", s, w)
		}
	}
}

// Values larger than a chunk come back whole; the server splits them.
func TestLargeValuesAndStats(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.table("t", "cf")
	big := make([]byte, 5<<20+123)
	for i := range big {
		big[i] = byte(i * 7)
	}
	m := bigtable.NewMutation()
	m.Set("cf", "big", 1000, big)
	m.Set("cf", "small", 1000, []byte("s"))
	if err := tbl.Apply(e.ctx(), "r", m); err != nil {
		t.Fatal(err)
	}
	e.set(tbl, "r2", "cf", "x", 1000, "y")
	var stats *bigtable.FullReadStats
	var got []bigtable.Row
	err := tbl.ReadRows(e.ctx(), bigtable.InfiniteRange(""), func(r bigtable.Row) bool {
		got = append(got, r)
		return true
	}, bigtable.WithFullReadStats(func(s *bigtable.FullReadStats) { stats = s }))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0]["cf"]) != 2 || !slices.Equal(got[0]["cf"][0].Value, big) {
		t.Fatalf("large value did not come back whole")
	}
	if stats == nil || stats.ReadIterationStats.RowsReturnedCount != 2 || stats.ReadIterationStats.CellsReturnedCount != 3 {
		t.Fatalf("stats = %+v", stats)
	}
}

// A scan that a filter mostly empties reports its progress in
// last_scanned_row_key, so a retry need not scan the dropped rows again.
func TestLastScannedRowKey(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.table("t", "cf")
	var keys []string
	var muts []*bigtable.Mutation
	for i := range 2500 {
		m := bigtable.NewMutation()
		m.Set("cf", "c", 1000, []byte("v"))
		keys, muts = append(keys, fmt.Sprintf("r%05d", i)), append(muts, m)
	}
	if errs, err := tbl.ApplyBulk(e.ctx(), keys, muts); err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	stream, err := btpb.NewBigtableClient(e.conn).ReadRows(e.ctx(), &btpb.ReadRowsRequest{
		TableName: e.tableName("t"),
		Filter:    &btpb.RowFilter{Filter: &btpb.RowFilter_RowKeyRegexFilter{RowKeyRegexFilter: []byte("r02499")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var progress []string
	rows := 0
	for {
		resp, err := stream.Recv()
		if err != nil {
			break
		}
		if resp.LastScannedRowKey != nil {
			progress = append(progress, string(resp.LastScannedRowKey))
		}
		for _, c := range resp.Chunks {
			if c.GetCommitRow() {
				rows++
			}
		}
	}
	if rows != 1 || !slices.Equal(progress, []string{"r00999", "r01999"}) {
		t.Fatalf("rows %d, progress %q; want 1 row and progress at r00999, r01999", rows, progress)
	}
}
