package server_test

import (
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"
	btapb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tabuladb/tabula/internal/server"
)

func TestTableAdmin(t *testing.T) {
	e := start(t, server.Options{})
	ctx := e.ctx()
	err := e.admin.CreateTableFromConf(ctx, &bigtable.TableConf{
		TableID:   "t1",
		SplitKeys: []string{"m", "f"},
		Families:  map[string]bigtable.GCPolicy{"cf": bigtable.MaxVersionsPolicy(2), "old": bigtable.MaxAgePolicy(time.Hour)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.admin.CreateTable(ctx, "t2"); err != nil {
		t.Fatal(err)
	}
	if code := status.Code(e.admin.CreateTable(ctx, "t2")); code != codes.AlreadyExists {
		t.Errorf("second CreateTable: %v, want AlreadyExists", code)
	}
	tables, err := e.admin.Tables(ctx)
	if err != nil || !slices.Equal(tables, []string{"t1", "t2"}) {
		t.Fatalf("Tables = %v, %v", tables, err)
	}
	info, err := e.admin.TableInfo(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range info.FamilyInfos {
		got[f.Name] = f.GCPolicy
	}
	if got["cf"] != "versions() > 2" || got["old"] != "age() > 1h" || len(got) != 2 {
		t.Errorf("families %v", got)
	}
	tbl := e.client.Open("t1")
	for _, k := range []string{"a", "g", "z"} {
		e.set(tbl, k, "cf", "c", 1000, k)
	}
	keys, err := tbl.SampleRowKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(keys, "f") || !slices.Contains(keys, "m") {
		t.Errorf("SampleRowKeys %q does not name the split points f and m", keys)
	}
	if err := e.admin.DeleteTable(ctx, "t2"); err != nil {
		t.Fatal(err)
	}
	if code := status.Code(e.admin.DeleteTable(ctx, "t2")); code != codes.NotFound {
		t.Errorf("DeleteTable of a deleted table: %v, want NotFound", code)
	}
	if _, err := e.admin.TableInfo(ctx, "t2"); status.Code(err) != codes.NotFound {
		t.Errorf("TableInfo of a deleted table: %v", err)
	}
}

// GC rules: a cell past its family's rule is never returned.
func TestGCRules(t *testing.T) {
	e := start(t, server.Options{})
	ctx := e.ctx()
	tbl := e.table("t", "v2", "age", "all")
	if err := e.admin.SetGCPolicy(ctx, "t", "v2", bigtable.MaxVersionsPolicy(2)); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.SetGCPolicy(ctx, "t", "age", bigtable.UnionPolicy(bigtable.MaxAgePolicy(time.Hour), bigtable.MaxVersionsPolicy(5))); err != nil {
		t.Fatal(err)
	}
	now := bigtable.Now().TruncateToMilliseconds()
	old := bigtable.Time(time.Now().Add(-2 * time.Hour)).TruncateToMilliseconds()
	for i := range 4 {
		e.set(tbl, "r", "v2", "c", bigtable.Timestamp(1000*(i+1)), "x")
		e.set(tbl, "r", "all", "c", bigtable.Timestamp(1000*(i+1)), "x")
	}
	e.set(tbl, "r", "age", "new", now, "n")
	e.set(tbl, "r", "age", "old", old, "o")
	r, err := tbl.ReadRow(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r["v2"]); n != 2 {
		t.Errorf("v2 has %d versions, want 2", n)
	}
	if n := len(r["all"]); n != 4 {
		t.Errorf("all has %d versions, want 4", n)
	}
	if n := len(r["age"]); n != 1 || r["age"][0].Column != "age:new" {
		t.Errorf("age cells %v, want only age:new", r["age"])
	}
}

func TestDeletionProtection(t *testing.T) {
	e := start(t, server.Options{})
	ctx := e.ctx()
	if err := e.admin.CreateTableFromConf(ctx, &bigtable.TableConf{TableID: "t", DeletionProtection: bigtable.Protected}); err != nil {
		t.Fatal(err)
	}
	if code := status.Code(e.admin.DeleteTable(ctx, "t")); code != codes.FailedPrecondition {
		t.Fatalf("delete of a protected table: %v, want FailedPrecondition", code)
	}
	e.restart()
	ctx = e.ctx()
	info, err := e.admin.TableInfo(ctx, "t")
	if err != nil || info.DeletionProtection != bigtable.Protected {
		t.Fatalf("after restart: %v %v", info, err)
	}
	if err := e.admin.UpdateTableWithDeletionProtection(ctx, "t", bigtable.Unprotected); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.DeleteTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
}

func TestModifyColumnFamilies(t *testing.T) {
	e := start(t, server.Options{})
	ctx := e.ctx()
	tbl := e.table("t", "cf", "gone")
	e.set(tbl, "r", "cf", "c", 1000, "keep")
	e.set(tbl, "r", "gone", "c", 1000, "old")
	if code := status.Code(e.admin.CreateColumnFamily(ctx, "t", "cf")); code != codes.AlreadyExists {
		t.Errorf("create existing family: %v", code)
	}
	if code := status.Code(e.admin.DeleteColumnFamily(ctx, "t", "nope")); code != codes.NotFound {
		t.Errorf("drop unknown family: %v", code)
	}
	if code := status.Code(e.admin.CreateColumnFamily(ctx, "t", "bad:name")); code != codes.InvalidArgument {
		t.Errorf("bad family name: %v", code)
	}
	if err := e.admin.DeleteColumnFamily(ctx, "t", "gone"); err != nil {
		t.Fatal(err)
	}
	m := bigtable.NewMutation()
	m.Set("gone", "c", 2000, []byte("x"))
	if code := status.Code(tbl.Apply(ctx, "r", m)); code != codes.NotFound {
		t.Errorf("write to a dropped family: %v, want NotFound", code)
	}
	// A family dropped and created again starts empty.
	if err := e.admin.CreateColumnFamily(ctx, "t", "gone"); err != nil {
		t.Fatal(err)
	}
	want := []string{"r{cf:c@1=keep}"}
	if got := e.readAll(tbl, bigtable.InfiniteRange("")); !slices.Equal(got, want) {
		t.Errorf("after drop and re-create: %q, want %q", got, want)
	}
	e.restart()
	tbl = e.client.Open("t")
	if got := e.readAll(tbl, bigtable.InfiniteRange("")); !slices.Equal(got, want) {
		t.Errorf("after restart: %q, want %q", got, want)
	}
	// Dropped and created again within one request: the family starts empty.
	mods := []*btapb.ModifyColumnFamiliesRequest_Modification{
		{Id: "cf", Mod: &btapb.ModifyColumnFamiliesRequest_Modification_Drop{Drop: true}},
		{Id: "cf", Mod: &btapb.ModifyColumnFamiliesRequest_Modification_Create{Create: &btapb.ColumnFamily{}}},
	}
	if _, err := btapb.NewBigtableTableAdminClient(e.conn).ModifyColumnFamilies(e.ctx(), &btapb.ModifyColumnFamiliesRequest{Name: e.tableName("t"), Modifications: mods}); err != nil {
		t.Fatal(err)
	}
	if got := e.readAll(tbl, bigtable.InfiniteRange("")); len(got) != 0 {
		t.Errorf("after drop and create in one request: %q, want no rows", got)
	}
	// A request with one bad modification changes nothing.
	bad := []*btapb.ModifyColumnFamiliesRequest_Modification{
		{Id: "gone", Mod: &btapb.ModifyColumnFamiliesRequest_Modification_Drop{Drop: true}},
		{Id: "nope", Mod: &btapb.ModifyColumnFamiliesRequest_Modification_Drop{Drop: true}},
	}
	if _, err := btapb.NewBigtableTableAdminClient(e.conn).ModifyColumnFamilies(e.ctx(), &btapb.ModifyColumnFamiliesRequest{Name: e.tableName("t"), Modifications: bad}); status.Code(err) != codes.NotFound {
		t.Errorf("bad modification: %v", err)
	}
	if info, err := e.admin.TableInfo(e.ctx(), "t"); err != nil || len(info.Families) != 2 {
		t.Errorf("families after a failed request: %v %v", info, err)
	}
}

func TestDropRowRange(t *testing.T) {
	e := start(t, server.Options{})
	ctx := e.ctx()
	tbl := e.table("t", "cf")
	for _, k := range []string{"a1", "a2", "b1", "b2", "c1"} {
		e.set(tbl, k, "cf", "c", 1000, k)
	}
	if err := e.admin.DropRowRange(ctx, "t", "b"); err != nil {
		t.Fatal(err)
	}
	keys := func() []string {
		var out []string
		for _, r := range e.readAll(e.client.Open("t"), bigtable.InfiniteRange("")) {
			out = append(out, r[:2])
		}
		return out
	}
	if got := keys(); !slices.Equal(got, []string{"a1", "a2", "c1"}) {
		t.Fatalf("after dropping prefix b: %q", got)
	}
	e.restart()
	ctx = e.ctx()
	if got := keys(); !slices.Equal(got, []string{"a1", "a2", "c1"}) {
		t.Fatalf("after restart: %q", got)
	}
	if err := e.admin.DropAllRows(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if got := keys(); len(got) != 0 {
		t.Fatalf("after dropping all rows: %q", got)
	}
	e.set(e.client.Open("t"), "d", "cf", "c", 1000, "new")
	e.restart()
	if got := keys(); !slices.Equal(got, []string{"d{"}) {
		t.Fatalf("after a new write and restart: %q", got)
	}
}

func TestConsistencyAndAggregates(t *testing.T) {
	e := start(t, server.Options{})
	ctx := e.ctx()
	tbl := e.table("t", "cf")
	if err := e.admin.WaitForReplication(ctx, "t"); err != nil {
		t.Fatalf("WaitForReplication: %v", err)
	}
	sum := bigtable.Family{ValueType: bigtable.AggregateType{Input: bigtable.Int64Type{}, Aggregator: bigtable.SumAggregator{}}}
	if err := e.admin.CreateColumnFamilyWithConfig(ctx, "t", "sum", sum); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 10; i++ {
		m := bigtable.NewMutation()
		m.AddIntToCell("sum", "total", 0, int64(i))
		if err := tbl.Apply(ctx, "r", m); err != nil {
			t.Fatal(err)
		}
	}
	r, err := tbl.ReadRow(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if len(r["sum"]) != 1 || string(r["sum"][0].Value) != "\x00\x00\x00\x00\x00\x00\x00\x37" {
		t.Fatalf("sum cell %v, want 55", r["sum"])
	}
	info, err := e.admin.TableInfo(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range info.FamilyInfos {
		if f.Name == "sum" && f.ValueType == nil {
			t.Errorf("sum family lost its value type")
		}
	}
}

func TestInstanceAdmin(t *testing.T) {
	e := start(t, server.Options{})
	ctx := e.ctx()
	ia, err := bigtable.NewInstanceAdminClient(ctx, testProject, optionConn(e))
	if err != nil {
		t.Fatal(err)
	}
	defer ia.Close()
	if err := ia.CreateInstance(ctx, &bigtable.InstanceConf{InstanceId: "other", DisplayName: "Other", ClusterId: "c1", Zone: "local", NumNodes: 1}); err != nil {
		t.Fatal(err)
	}
	e.table("t", "cf")
	insts, err := ia.Instances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range insts {
		names = append(names, in.Name)
	}
	if !slices.Contains(names, "other") || !slices.Contains(names, testInstance) {
		t.Errorf("Instances = %v", names)
	}
	info, err := ia.InstanceInfo(ctx, "other")
	if err != nil || info.DisplayName != "Other" {
		t.Fatalf("InstanceInfo = %+v, %v", info, err)
	}
	clusters, err := ia.Clusters(ctx, "other")
	if err != nil || len(clusters) == 0 {
		t.Fatalf("Clusters = %v, %v", clusters, err)
	}
	if _, err := ia.GetCluster(ctx, "other", "c1"); err != nil {
		t.Fatal(err)
	}
	if _, err := ia.CreateAppProfile(ctx, bigtable.ProfileConf{ProfileID: "batch", InstanceID: testInstance, RoutingPolicy: bigtable.MultiClusterRouting}); err != nil {
		t.Fatal(err)
	}
	if _, err := ia.GetAppProfile(ctx, testInstance, "batch"); err != nil {
		t.Fatal(err)
	}
	if err := ia.DeleteAppProfile(ctx, testInstance, "batch"); err != nil {
		t.Fatal(err)
	}
	if _, err := ia.GetAppProfile(ctx, testInstance, "batch"); status.Code(err) != codes.NotFound {
		t.Errorf("deleted app profile: %v", err)
	}
}
