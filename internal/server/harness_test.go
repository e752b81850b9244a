package server_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tabuladb/tabula/internal/server"
)

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

const (
	testProject  = "proj"
	testInstance = "inst"
)

// env is a server on a temporary directory and the official clients
// connected to it.
type env struct {
	t      *testing.T
	dir    string
	srv    *server.Server
	conn   *grpc.ClientConn
	client *bigtable.Client
	admin  *bigtable.AdminClient
}

// start starts a server on dir with the given options and connects the
// official Go client to it.
func start(t *testing.T, o server.Options) *env {
	t.Helper()
	if o.Dir == "" && !o.Memory {
		o.Dir = t.TempDir()
	}
	o.Addr = "127.0.0.1:0"
	o.Logger = quietLogger
	srv, err := server.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, dir: o.Dir, srv: srv}
	e.connect()
	t.Cleanup(e.stop)
	return e
}

func (e *env) connect() {
	ctx := context.Background()
	conn, err := grpc.NewClient(e.srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<28), grpc.MaxCallSendMsgSize(1<<28)))
	if err != nil {
		e.t.Fatal(err)
	}
	e.conn = conn
	cfg := bigtable.ClientConfig{MetricsProvider: bigtable.NoopMetricsProvider{}}
	if e.client, err = bigtable.NewClientWithConfig(ctx, testProject, testInstance, cfg, option.WithGRPCConn(conn)); err != nil {
		e.t.Fatal(err)
	}
	if e.admin, err = bigtable.NewAdminClient(ctx, testProject, testInstance, option.WithGRPCConn(conn)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) stop() {
	if e.srv == nil {
		return
	}
	e.client.Close()
	e.admin.Close()
	e.conn.Close()
	if err := e.srv.Stop(); err != nil {
		e.t.Errorf("stop: %v", err)
	}
	e.srv = nil
}

// restart stops the server and starts a new one on the same directory.
func (e *env) restart() {
	e.stop()
	srv, err := server.Start(server.Options{Addr: "127.0.0.1:0", Dir: e.dir, Logger: quietLogger})
	if err != nil {
		e.t.Fatal(err)
	}
	e.srv = srv
	e.connect()
}

// ctx returns a context that ends with the test or after a minute.
func (e *env) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	e.t.Cleanup(cancel)
	return ctx
}

// table creates a table with the given families, each keeping all versions.
func (e *env) table(name string, families ...string) *bigtable.Table {
	e.t.Helper()
	ctx := e.ctx()
	if err := e.admin.CreateTable(ctx, name); err != nil {
		e.t.Fatal(err)
	}
	for _, f := range families {
		if err := e.admin.CreateColumnFamily(ctx, name, f); err != nil {
			e.t.Fatal(err)
		}
	}
	return e.client.Open(name)
}

// set writes one cell.
func (e *env) set(tbl *bigtable.Table, row, fam, col string, ts bigtable.Timestamp, val string) {
	e.t.Helper()
	m := bigtable.NewMutation()
	m.Set(fam, col, ts, []byte(val))
	if err := tbl.Apply(e.ctx(), row, m); err != nil {
		e.t.Fatalf("set %s %s:%s: %v", row, fam, col, err)
	}
}

// readAll reads rows with options and returns them as text.
func (e *env) readAll(tbl *bigtable.Table, rs bigtable.RowSet, opts ...bigtable.ReadOption) []string {
	e.t.Helper()
	var out []string
	err := tbl.ReadRows(e.ctx(), rs, func(r bigtable.Row) bool {
		out = append(out, rowString(r))
		return true
	}, opts...)
	if err != nil {
		e.t.Fatalf("read: %v", err)
	}
	return out
}

// optionConn returns the client option that reuses the env's connection.
func optionConn(e *env) option.ClientOption { return option.WithGRPCConn(e.conn) }

// contextFor returns the context of one call of a table test.
func contextFor() context.Context {
	return context.Background()
}

// tableName returns a table's full name.
func (e *env) tableName(id string) string {
	return "projects/" + testProject + "/instances/" + testInstance + "/tables/" + id
}
