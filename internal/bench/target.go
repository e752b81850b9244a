package bench

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"cloud.google.com/go/bigtable"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tabuladb/tabula/internal/adminpb"
	"github.com/tabuladb/tabula/internal/btconn"
)

// Families and columns of the benchmark tables.
const (
	paperFamily = "f"
	paperColumn = "c"
	ycsbFamily  = "cf"
	ycsbFields  = 10
)

// target is one server under test: its clients and what has been loaded.
type target struct {
	srv   *Server
	conn  *grpc.ClientConn
	data  *bigtable.Client
	admin *bigtable.AdminClient
	// ext is Tabula's admin extension; nil on other servers.
	ext adminpb.TabulaAdminClient
	// project and instance name the tables.
	project, instance string

	// loaded says the paper table holds every row of the row space.
	loaded bool
	// memLoaded and ycsbLoaded say the in-memory and YCSB tables are set up.
	memLoaded, ycsbLoaded bool
	// ycsbRecords is the number of YCSB records inserted so far.
	ycsbRecords atomic.Int64
}

// dial connects to addr and probes for Tabula's admin extension.
func dial(ctx context.Context, srv *Server, project, instance string) (*target, error) {
	conn, err := btconn.Dial(srv.Addr)
	if err != nil {
		return nil, err
	}
	t := &target{srv: srv, conn: conn, project: project, instance: instance}
	if t.data, err = btconn.Data(ctx, conn, project, instance); err != nil {
		t.close()
		return nil, err
	}
	if t.admin, err = btconn.Admin(ctx, conn, project, instance); err != nil {
		t.close()
		return nil, err
	}
	if _, err := t.admin.Tables(ctx); err != nil {
		t.close()
		return nil, fmt.Errorf("%s: list tables: %w", srv.Addr, err)
	}
	t.probeExtension(ctx)
	return t, nil
}

// probeExtension keeps the admin extension if the server answers it.
func (t *target) probeExtension(ctx context.Context) {
	ext := adminpb.NewTabulaAdminClient(t.conn)
	_, err := ext.GetLocalityGroups(ctx, &adminpb.GetLocalityGroupsRequest{Table: t.tableName("tabula-bench-probe")})
	if status.Code(err) == codes.Unimplemented {
		return
	}
	t.ext = ext
	t.srv.Tabula = true
}

func (t *target) tableName(table string) string {
	return fmt.Sprintf("projects/%s/instances/%s/tables/%s", t.project, t.instance, table)
}

func (t *target) close() {
	if t.data != nil {
		t.data.Close()
	}
	if t.admin != nil {
		t.admin.Close()
	}
	t.conn.Close()
}

// createTable creates table with one family keeping one version,
// replacing a table of that name left by an earlier run.
func (t *target) createTable(ctx context.Context, table, family string) error {
	err := t.admin.CreateTable(ctx, table)
	if status.Code(err) == codes.AlreadyExists {
		if err = t.admin.DeleteTable(ctx, table); err == nil {
			err = t.admin.CreateTable(ctx, table)
		}
	}
	if err != nil {
		return fmt.Errorf("create table %s: %w", table, err)
	}
	if err := t.admin.CreateColumnFamily(ctx, table, family); err != nil {
		return fmt.Errorf("create family %s:%s: %w", table, family, err)
	}
	if err := t.admin.SetGCPolicy(ctx, table, family, bigtable.MaxVersionsPolicy(1)); err != nil {
		return fmt.Errorf("set GC policy of %s:%s: %w", table, family, err)
	}
	return nil
}

// setInMemory puts family of table into an in-memory locality group.
func (t *target) setInMemory(ctx context.Context, table, family string) error {
	if t.ext == nil {
		return errors.New("bench: no admin extension")
	}
	name := t.tableName(table)
	_, err := t.ext.SetLocalityGroup(ctx, &adminpb.SetLocalityGroupRequest{
		Table: name, Group: "mem", UpdateMask: []string{"in_memory"}, InMemory: true})
	if err != nil {
		return fmt.Errorf("set locality group: %w", err)
	}
	if _, err = t.ext.SetFamilyGroup(ctx, &adminpb.SetFamilyGroupRequest{Table: name, Families: []string{family}, Group: "mem"}); err != nil {
		return fmt.Errorf("set family group: %w", err)
	}
	return nil
}

// flush writes table's memtables to SSTables, on Tabula.
func (t *target) flush(ctx context.Context, table string) error {
	if t.ext == nil {
		return nil
	}
	_, err := t.ext.Flush(ctx, &adminpb.TableOpRequest{Table: t.tableName(table)})
	return err
}

// dropTables deletes the tables a run created.
func (t *target) dropTables(ctx context.Context, tables ...string) {
	for _, table := range tables {
		_ = t.admin.DeleteTable(ctx, table)
	}
}
