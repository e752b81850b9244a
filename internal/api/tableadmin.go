package api

import (
	"context"
	"sort"
	"strconv"
	"strings"

	btapb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/tablet"
)

// tableAdminServer serves google.bigtable.admin.v2.BigtableTableAdmin.
type tableAdminServer struct {
	btapb.UnimplementedBigtableTableAdminServer
	s *Server
}

func (a *tableAdminServer) CreateTable(ctx context.Context, req *btapb.CreateTableRequest) (*btapb.Table, error) {
	if err := checkInstance(req.Parent); err != nil {
		return nil, toStatus(err)
	}
	if err := checkTableID(req.TableId); err != nil {
		return nil, toStatus(err)
	}
	schema, err := toSchema(req.Table)
	if err != nil {
		return nil, toStatus(err)
	}
	splits := make([][]byte, len(req.InitialSplits))
	for i, s := range req.InitialSplits {
		splits[i] = s.Key
	}
	name := tableName(req.Parent, req.TableId)
	if err := a.s.host.CreateTable(name, schema, splits); err != nil {
		return nil, toStatus(err)
	}
	return tableProto(name, schema, btapb.Table_SCHEMA_VIEW), nil
}

// toSchema converts a new table's settings.
func toSchema(t *btapb.Table) (*tablet.Schema, error) {
	s := &tablet.Schema{Families: map[string]tablet.Family{}, DeletionProtection: t.GetDeletionProtection()}
	for name, cf := range t.GetColumnFamilies() {
		f, err := toFamily(name, cf)
		if err != nil {
			return nil, err
		}
		s.Families[name] = f
	}
	return s, nil
}

// tableProto describes a table in the given view.
func tableProto(name string, s *tablet.Schema, view btapb.Table_View) *btapb.Table {
	t := &btapb.Table{Name: name}
	if view == btapb.Table_NAME_ONLY {
		return t
	}
	t.Granularity = btapb.Table_MILLIS
	t.DeletionProtection = s.DeletionProtection
	t.ColumnFamilies = make(map[string]*btapb.ColumnFamily, len(s.Families))
	for n, f := range s.Families {
		t.ColumnFamilies[n] = familyProto(f)
	}
	if view == btapb.Table_REPLICATION_VIEW || view == btapb.Table_FULL {
		t.ClusterStates = map[string]*btapb.Table_ClusterState{localCluster: {ReplicationState: btapb.Table_ClusterState_READY}}
	}
	return t
}

func (a *tableAdminServer) ListTables(ctx context.Context, req *btapb.ListTablesRequest) (*btapb.ListTablesResponse, error) {
	if err := checkInstance(req.Parent); err != nil {
		return nil, toStatus(err)
	}
	view := req.View
	if view == btapb.Table_VIEW_UNSPECIFIED {
		view = btapb.Table_NAME_ONLY
	}
	names := a.s.tablesOf(req.Parent)
	start, end, next, err := page(len(names), req.PageSize, req.PageToken)
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &btapb.ListTablesResponse{NextPageToken: next}
	for _, n := range names[start:end] {
		if s, err := a.s.host.TableSchema(n); err == nil {
			resp.Tables = append(resp.Tables, tableProto(n, s, view))
		}
	}
	return resp, nil
}

// tablesOf returns the names of an instance's tables, sorted.
func (s *Server) tablesOf(instance string) []string {
	var out []string
	for _, n := range s.host.Tables() {
		if strings.HasPrefix(n, instance+"/tables/") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// page returns the slice [start, end) of n items a page request asks for,
// and the token of the next page.
func page(n int, size int32, token string) (start, end int, next string, err error) {
	if token != "" {
		if start, err = strconv.Atoi(token); err != nil || start < 0 || start > n {
			return 0, 0, "", invalidf("bad page token %q", token)
		}
	}
	end = n
	if size > 0 && start+int(size) < n {
		end = start + int(size)
		next = strconv.Itoa(end)
	}
	return start, end, next, nil
}

func (a *tableAdminServer) GetTable(ctx context.Context, req *btapb.GetTableRequest) (*btapb.Table, error) {
	s, err := a.s.schema(req.Name)
	if err != nil {
		return nil, toStatus(err)
	}
	view := req.View
	if view == btapb.Table_VIEW_UNSPECIFIED {
		view = btapb.Table_SCHEMA_VIEW
	}
	return tableProto(req.Name, s, view), nil
}

// schema checks a table name and returns the table's schema.
func (s *Server) schema(name string) (*tablet.Schema, error) {
	if _, _, err := parseTable(name); err != nil {
		return nil, err
	}
	return s.host.TableSchema(name)
}

func (a *tableAdminServer) DeleteTable(ctx context.Context, req *btapb.DeleteTableRequest) (*emptypb.Empty, error) {
	if _, _, err := parseTable(req.Name); err != nil {
		return nil, toStatus(err)
	}
	a.s.adminMu.Lock()
	defer a.s.adminMu.Unlock()
	return &emptypb.Empty{}, toStatus(a.s.host.DeleteTable(req.Name))
}

func (a *tableAdminServer) ModifyColumnFamilies(ctx context.Context, req *btapb.ModifyColumnFamiliesRequest) (*btapb.Table, error) {
	a.s.adminMu.Lock()
	defer a.s.adminMu.Unlock()
	s, err := a.s.schema(req.Name)
	if err != nil {
		return nil, toStatus(err)
	}
	if len(req.Modifications) == 0 {
		return nil, toStatus(invalidf("no modifications"))
	}
	check := s.Clone()
	for _, m := range req.Modifications {
		if err := modifyFamily(check, m); err != nil {
			return nil, toStatus(err)
		}
	}
	s, err = a.s.applyModifications(req.Name, s.Clone(), req.Modifications)
	if err != nil {
		return nil, toStatus(err)
	}
	return tableProto(req.Name, s, btapb.Table_SCHEMA_VIEW), nil
}

// applyModifications applies checked modifications. A family dropped and
// created again in one request is dropped in a schema of its own first, so
// the host sees it go and the new family starts empty.
func (s *Server) applyModifications(name string, schema *tablet.Schema, mods []*btapb.ModifyColumnFamiliesRequest_Modification) (*tablet.Schema, error) {
	dropped := map[string]bool{}
	for _, m := range mods {
		if _, create := m.Mod.(*btapb.ModifyColumnFamiliesRequest_Modification_Create); create && dropped[m.Id] {
			if err := s.host.SetSchema(name, schema); err != nil {
				return nil, err
			}
			clear(dropped)
		}
		if _, drop := m.Mod.(*btapb.ModifyColumnFamiliesRequest_Modification_Drop); drop {
			dropped[m.Id] = true
		}
		if err := modifyFamily(schema, m); err != nil {
			return nil, err
		}
	}
	return schema, s.host.SetSchema(name, schema)
}

// modifyFamily applies one modification to a schema.
func modifyFamily(s *tablet.Schema, m *btapb.ModifyColumnFamiliesRequest_Modification) error {
	old, exists := s.Families[m.Id]
	switch x := m.Mod.(type) {
	case *btapb.ModifyColumnFamiliesRequest_Modification_Create:
		if exists {
			return base.AlreadyExistsf("column family %q", m.Id)
		}
		f, err := toFamily(m.Id, x.Create)
		s.Families[m.Id] = f
		return err
	case *btapb.ModifyColumnFamiliesRequest_Modification_Update:
		if !exists {
			return base.NotFoundf("column family %q", m.Id)
		}
		f, err := updateFamily(m.Id, old, x.Update, m.UpdateMask.GetPaths())
		s.Families[m.Id] = f
		return err
	case *btapb.ModifyColumnFamiliesRequest_Modification_Drop:
		if !exists {
			return base.NotFoundf("column family %q", m.Id)
		}
		delete(s.Families, m.Id)
		return nil
	}
	return invalidf("modification of %q has no create, update or drop", m.Id)
}

// updateFamily changes the fields of a family the mask names (all when the
// mask is empty); the value type of an existing family cannot change.
func updateFamily(name string, old tablet.Family, cf *btapb.ColumnFamily, mask []string) (tablet.Family, error) {
	f, err := toFamily(name, cf)
	if err != nil {
		return old, err
	}
	gc, typ := len(mask) == 0, len(mask) == 0
	for _, p := range mask {
		switch p {
		case "gc_rule", "gcRule":
			gc = true
		case "value_type", "valueType":
			typ = true
		default:
			return old, invalidf("cannot update column family field %q", p)
		}
	}
	if typ && cf.ValueType != nil && f.Aggregate != old.Aggregate {
		return old, invalidf("the value type of column family %q cannot change", name)
	}
	if gc {
		old.GC = f.GC
	}
	return old, nil
}

func (a *tableAdminServer) DropRowRange(ctx context.Context, req *btapb.DropRowRangeRequest) (*emptypb.Empty, error) {
	if _, err := a.s.schema(req.Name); err != nil {
		return nil, toStatus(err)
	}
	var err error
	switch x := req.Target.(type) {
	case *btapb.DropRowRangeRequest_RowKeyPrefix:
		if len(x.RowKeyPrefix) == 0 {
			return nil, toStatus(invalidf("empty row key prefix"))
		}
		err = a.s.host.DropRowRange(req.Name, x.RowKeyPrefix, base.PrefixEnd(x.RowKeyPrefix))
	case *btapb.DropRowRangeRequest_DeleteAllDataFromTable:
		if !x.DeleteAllDataFromTable {
			return nil, toStatus(invalidf("delete_all_data_from_table is false"))
		}
		err = a.s.host.DropRowRange(req.Name, nil, nil)
	default:
		err = invalidf("drop row range needs a row key prefix or delete_all_data_from_table")
	}
	return &emptypb.Empty{}, toStatus(err)
}

func (a *tableAdminServer) UpdateTable(ctx context.Context, req *btapb.UpdateTableRequest) (*longrunningpb.Operation, error) {
	a.s.adminMu.Lock()
	defer a.s.adminMu.Unlock()
	name := req.GetTable().GetName()
	s, err := a.s.schema(name)
	if err != nil {
		return nil, toStatus(err)
	}
	paths := req.GetUpdateMask().GetPaths()
	if len(paths) == 0 {
		return nil, toStatus(invalidf("update_mask is empty"))
	}
	s = s.Clone()
	for _, p := range paths {
		if p != "deletion_protection" && p != "deletionProtection" {
			return nil, toStatus(invalidf("cannot update table field %q", p))
		}
		s.DeletionProtection = req.Table.DeletionProtection
	}
	if err := a.s.host.SetSchema(name, s); err != nil {
		return nil, toStatus(err)
	}
	now := timestamppb.New(a.s.clock())
	meta := &btapb.UpdateTableMetadata{Name: name, StartTime: now, EndTime: now}
	return doneOperation(name, meta, tableProto(name, s, btapb.Table_SCHEMA_VIEW))
}

// doneOperation returns a finished long-running operation: every admin
// change here completes before the call returns.
func doneOperation(name string, meta, resp proto.Message) (*longrunningpb.Operation, error) {
	m, err := anypb.New(meta)
	if err != nil {
		return nil, toStatus(err)
	}
	r, err := anypb.New(resp)
	if err != nil {
		return nil, toStatus(err)
	}
	return &longrunningpb.Operation{Name: name + "/operations/done", Metadata: m, Done: true, Result: &longrunningpb.Operation_Response{Response: r}}, nil
}

func (a *tableAdminServer) GenerateConsistencyToken(ctx context.Context, req *btapb.GenerateConsistencyTokenRequest) (*btapb.GenerateConsistencyTokenResponse, error) {
	if _, err := a.s.schema(req.Name); err != nil {
		return nil, toStatus(err)
	}
	tok := strconv.FormatInt(a.s.clock().UnixMicro(), 10)
	return &btapb.GenerateConsistencyTokenResponse{ConsistencyToken: tok}, nil
}

// CheckConsistency answers true for any token this server made: there is
// one cluster, and every acknowledged write is already durable and visible.
func (a *tableAdminServer) CheckConsistency(ctx context.Context, req *btapb.CheckConsistencyRequest) (*btapb.CheckConsistencyResponse, error) {
	if _, err := a.s.schema(req.Name); err != nil {
		return nil, toStatus(err)
	}
	if _, err := strconv.ParseInt(req.ConsistencyToken, 10, 64); err != nil {
		return nil, toStatus(invalidf("bad consistency token %q", req.ConsistencyToken))
	}
	return &btapb.CheckConsistencyResponse{Consistent: true}, nil
}
