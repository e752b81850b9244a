package server_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"
	btapb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tabuladb/tabula/internal/adminpb"
	"github.com/tabuladb/tabula/internal/server"
)

// Paper §5.3: a tablet splits when it grows past a size; scans and
// SampleRowKeys follow the tablets.
func TestTabletsSplitBySize(t *testing.T) {
	e := start(t, server.Options{SplitSize: 256 << 10, MemtableSize: 64 << 10})
	tbl := e.table("t", "cf")
	ext := adminpb.NewTabulaAdminClient(e.conn)
	const rows = 2000
	var keys []string
	var muts []*bigtable.Mutation
	for i := range rows {
		m := bigtable.NewMutation()
		m.Set("cf", "c", 1000, fmt.Appendf(nil, "%0500d", i))
		keys = append(keys, fmt.Sprintf("row%05d", i))
		muts = append(muts, m)
	}
	if errs, err := tbl.ApplyBulk(e.ctx(), keys, muts); err != nil || errs != nil {
		t.Fatal(err, errs)
	}
	if _, err := ext.Flush(e.ctx(), &adminpb.TableOpRequest{Table: e.tableName("t")}); err != nil {
		t.Fatal(err)
	}
	var tablets []*adminpb.Tablet
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := ext.ListTablets(e.ctx(), &adminpb.ListTabletsRequest{Table: e.tableName("t")})
		if err != nil {
			t.Fatal(err)
		}
		if tablets = resp.Tablets; len(tablets) >= 3 {
			break
		}
	}
	if len(tablets) < 3 {
		t.Fatalf("%d tablets after writing ~1 MB with a 256 KiB split size", len(tablets))
	}
	got := e.readAll(tbl, bigtable.InfiniteRange(""), bigtable.RowFilter(bigtable.StripValueFilter()))
	if len(got) != rows || !slices.IsSorted(got) {
		t.Fatalf("scan over %d tablets returned %d rows (sorted %v)", len(tablets), len(got), slices.IsSorted(got))
	}
	rev := e.readAll(tbl, bigtable.InfiniteRange(""), bigtable.RowFilter(bigtable.StripValueFilter()), bigtable.ReverseScan())
	slices.Reverse(rev)
	if !slices.Equal(rev, got) {
		t.Fatalf("reversed scan over tablets differs")
	}
	samples, err := tbl.SampleRowKeys(e.ctx())
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tablets[:len(tablets)-1] {
		if !slices.Contains(samples, string(tb.EndKey)) {
			t.Errorf("SampleRowKeys %q lacks the tablet boundary %q", samples, tb.EndKey)
		}
	}
}

func TestManualSplitAndLocalityGroups(t *testing.T) {
	e := start(t, server.Options{})
	tbl := e.table("t", "cf", "hot")
	ext := adminpb.NewTabulaAdminClient(e.conn)
	name := e.tableName("t")
	for _, k := range []string{"a", "m", "z"} {
		e.set(tbl, k, "hot", "c", 1000, k)
	}
	if _, err := ext.Split(e.ctx(), &adminpb.SplitRequest{Table: name, RowKey: []byte("m")}); err != nil {
		t.Fatal(err)
	}
	_, err := ext.SetLocalityGroup(e.ctx(), &adminpb.SetLocalityGroupRequest{Table: name, Group: "mem", InMemory: true, Compression: adminpb.Compression_SNAPPY, BloomFilter: true})
	if err != nil {
		t.Fatal(err)
	}
	groups, err := ext.SetFamilyGroup(e.ctx(), &adminpb.SetFamilyGroupRequest{Table: name, Families: []string{"hot"}, Group: "mem"})
	if err != nil {
		t.Fatal(err)
	}
	var mem *adminpb.LocalityGroup
	for _, g := range groups.Groups {
		if g.Name == "mem" {
			mem = g
		}
	}
	if mem == nil || !mem.InMemory || mem.Compression != adminpb.Compression_SNAPPY || !slices.Equal(mem.Families, []string{"hot"}) {
		t.Fatalf("groups after setting: %v", groups)
	}
	if _, err := ext.Compact(e.ctx(), &adminpb.TableOpRequest{Table: name}); err != nil {
		t.Fatal(err)
	}
	e.restart()
	ext = adminpb.NewTabulaAdminClient(e.conn)
	resp, err := ext.ListTablets(e.ctx(), &adminpb.ListTabletsRequest{Table: name})
	if err != nil || len(resp.Tablets) != 2 || string(resp.Tablets[1].StartKey) != "m" {
		t.Fatalf("tablets after split and restart: %v %v", resp, err)
	}
	want := []string{"a{hot:c@1=a}", "m{hot:c@1=m}", "z{hot:c@1=z}"}
	if got := e.readAll(e.client.Open("t"), bigtable.InfiniteRange("")); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	_, err = ext.SetFamilyGroup(e.ctx(), &adminpb.SetFamilyGroupRequest{Table: name, Families: []string{"nope"}, Group: "mem"})
	if status.Code(err) != codes.NotFound {
		t.Errorf("unknown family: %v", err)
	}
}

// Calls outside what the server implements answer UNIMPLEMENTED.
func TestUnimplementedCalls(t *testing.T) {
	e := start(t, server.Options{})
	e.table("t", "cf")
	_, err := btpb.NewBigtableClient(e.conn).PrepareQuery(e.ctx(), &btpb.PrepareQueryRequest{InstanceName: "projects/proj/instances/inst", Query: "SELECT 1"})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("PrepareQuery: %v", err)
	}
	_, err = btapb.NewBigtableTableAdminClient(e.conn).GetBackup(e.ctx(), &btapb.GetBackupRequest{Name: "projects/proj/instances/inst/clusters/local/backups/b"})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("GetBackup: %v", err)
	}
	_, err = btpb.NewBigtableClient(e.conn).MutateRow(e.ctx(), &btpb.MutateRowRequest{AuthorizedViewName: e.tableName("t") + "/authorizedViews/v", RowKey: []byte("r")})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("MutateRow on an authorized view: %v", err)
	}
}
