package main

// Process-level tests: the tabula binary is built once, run as a child
// process, and driven with the official Go client, the way a user runs it.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// tabulaBin is the binary TestMain builds.
var tabulaBin string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "tabula-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	tabulaBin = filepath.Join(dir, "tabula")
	build := exec.Command("go", "build", "-o", tabulaBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n", err)
		return 1
	}
	return m.Run()
}

// lockedBuffer collects a child's stderr.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is a running `tabula serve`.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	addr   string
	stderr *lockedBuffer
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's result, valid after done
}

// freeAddr returns a 127.0.0.1 address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// spawn starts `tabula serve --addr ADDR --data DIR extra...` and returns at
// once; the process is killed when the test ends if it still runs.
func spawn(t *testing.T, addr, dir string, extra ...string) *proc {
	t.Helper()
	args := append([]string{"serve", "--addr", addr, "--data", dir}, extra...)
	p := &proc{t: t, cmd: exec.Command(tabulaBin, args...), addr: addr, stderr: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("stderr of pid %d:\n%s", p.cmd.Process.Pid, p.stderr)
		}
	})
	return p
}

// startServe starts a server on a fresh port and waits until it accepts.
func startServe(t *testing.T, dir string, extra ...string) *proc {
	t.Helper()
	p := spawn(t, freeAddr(t), dir, extra...)
	p.waitReady()
	return p
}

// waitReady waits until the server accepts connections.
func (p *proc) waitReady() {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			p.t.Fatalf("serve exited before accepting (%v):\n%s", p.err, p.stderr)
		default:
		}
		if c, err := net.DialTimeout("tcp", p.addr, 200*time.Millisecond); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("serve did not accept on %s within 15s:\n%s", p.addr, p.stderr)
}

// signal sends sig and waits up to limit for the process to exit; it
// returns the exit code (-1 when killed by a signal).
func (p *proc) signal(sig syscall.Signal, limit time.Duration) int {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	return p.wait(limit)
}

// wait waits up to limit for the process to exit and returns its exit code.
func (p *proc) wait(limit time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		p.t.Fatalf("pid %d still running %v later:\n%s", p.cmd.Process.Pid, limit, p.stderr)
	}
	return p.cmd.ProcessState.ExitCode()
}

const (
	project  = "proj"
	instance = "inst"
)

// clients are the official data and admin clients on one connection.
type clients struct {
	conn   *grpc.ClientConn
	client *bigtable.Client
	admin  *bigtable.AdminClient
}

func connect(t *testing.T, addr string) *clients {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<28), grpc.MaxCallSendMsgSize(1<<28)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := &clients{conn: conn}
	cfg := bigtable.ClientConfig{MetricsProvider: bigtable.NoopMetricsProvider{}}
	if c.client, err = bigtable.NewClientWithConfig(ctx, project, instance, cfg, option.WithGRPCConn(conn)); err != nil {
		t.Fatal(err)
	}
	if c.admin, err = bigtable.NewAdminClient(ctx, project, instance, option.WithGRPCConn(conn)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c
}

func (c *clients) close() {
	if c.conn == nil {
		return
	}
	c.client.Close()
	c.admin.Close()
	c.conn.Close()
	c.conn = nil
}

// createTable creates table with family cf (all versions kept).
func (c *clients) createTable(t *testing.T, table string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.admin.CreateTable(ctx, table); err != nil {
		t.Fatal(err)
	}
	if err := c.admin.CreateColumnFamily(ctx, table, "cf"); err != nil {
		t.Fatal(err)
	}
}

// Rows written by the tests carry rowCells cells, c0..c4 in family cf,
// whose values derive from the row key, so a reader can tell a whole row
// from a part of one.
const rowCells = 5

func rowMutation(key string) *bigtable.Mutation {
	m := bigtable.NewMutation()
	for j := 0; j < rowCells; j++ {
		m.Set("cf", fmt.Sprintf("c%d", j), bigtable.Timestamp(1000), []byte(cellValue(key, j)))
	}
	return m
}

func cellValue(key string, j int) string { return fmt.Sprintf("%s/v%d", key, j) }

// checkRow returns "" if r is a whole row written by rowMutation, else
// what is wrong with it.
func checkRow(r bigtable.Row) string {
	items := r["cf"]
	if len(items) != rowCells {
		return fmt.Sprintf("row %q has %d of %d cells", r.Key(), len(items), rowCells)
	}
	for j, it := range items {
		if it.Column != fmt.Sprintf("cf:c%d", j) || string(it.Value) != cellValue(r.Key(), j) {
			return fmt.Sprintf("row %q cell %d is %s=%q", r.Key(), j, it.Column, it.Value)
		}
	}
	return ""
}

// scanAll reads every row of table, latest version per column.
func scanAll(t *testing.T, tbl *bigtable.Table) map[string]bigtable.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows := map[string]bigtable.Row{}
	err := tbl.ReadRows(ctx, bigtable.InfiniteRange(""), func(r bigtable.Row) bool {
		rows[r.Key()] = r
		return true
	}, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return rows
}

// callTimeout bounds each write of the load generators, so they notice a
// dead server within about this long.
const callTimeout = time.Second

// writeRows writes rows until ctx ends, from n goroutines, and
// returns the keys whose MutateRow returned nil.
func writeRows(ctx context.Context, tbl *bigtable.Table, prefix string, n int) []string {
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				if ctx.Err() != nil {
					return
				}
				key := fmt.Sprintf("%s-w%02d-%07d", prefix, w, i)
				ctx, cancel := context.WithTimeout(ctx, callTimeout)
				err := tbl.Apply(ctx, key, rowMutation(key))
				cancel()
				if err == nil {
					mu.Lock()
					acked = append(acked, key)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return acked
}

// loadBig writes n rows prefix%06d, each one cell cf:big of size bytes,
// with ApplyBulk in batches of 16.
func loadBig(t *testing.T, tbl *bigtable.Table, prefix string, n, size int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	val := bytes.Repeat([]byte("x"), size)
	for i := 0; i < n; i += 16 {
		var keys []string
		var muts []*bigtable.Mutation
		for j := i; j < min(i+16, n); j++ {
			m := bigtable.NewMutation()
			m.Set("cf", "big", bigtable.Timestamp(1000), val)
			keys, muts = append(keys, fmt.Sprintf("%s%06d", prefix, j)), append(muts, m)
		}
		errs, err := tbl.ApplyBulk(ctx, keys, muts)
		if err == nil && errs != nil {
			err = errors.Join(errs...)
		}
		if err != nil {
			t.Fatalf("load rows %d..: %v", i, err)
		}
	}
}

// TestStopOnSignal — DESIGN §5 (main: orderly shutdown on a signal):
// SIGTERM and SIGINT stop serve with exit code 0 within a few seconds; a
// slow scan in flight when the signal comes finishes whole, writers in
// flight get an answer, and every acknowledged write is there after a
// restart.
func TestStopOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) { testStopOnSignal(t, sig) })
	}
}

func testStopOnSignal(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	p := startServe(t, dir)
	c := connect(t, p.addr)
	c.createTable(t, "t")
	tbl := c.client.Open("t")

	// A slow scan of 24 MiB, more than gRPC's flow-control windows hold,
	// so the server is still sending when the signal comes: it must finish.
	const scanRows = 96
	loadBig(t, tbl, "a", scanRows, 256<<10)
	scanned := make(chan error, 1)
	var n int
	var scanEnd time.Time
	go func() {
		err := tbl.ReadRows(context.Background(), bigtable.PrefixRange("a"), func(r bigtable.Row) bool {
			n++
			time.Sleep(10 * time.Millisecond)
			return true
		})
		scanEnd = time.Now()
		scanned <- err
	}()

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ackedCh := make(chan []string, 1)
	go func() { ackedCh <- writeRows(ctx, tbl, "s", 8) }()
	time.Sleep(300 * time.Millisecond)

	start := time.Now()
	code := p.signal(sig, 10*time.Second)
	took := time.Since(start)
	stop()
	if err := <-scanned; err != nil || n != scanRows {
		t.Errorf("%v: scan in flight ended with %v after %d of %d rows", sig, err, n, scanRows)
	}
	t.Logf("%v: scan in flight ended %v after the signal, the server %v after it", sig, scanEnd.Sub(start).Round(time.Millisecond), took.Round(time.Millisecond))
	var acked []string
	select {
	case acked = <-ackedCh:
	case <-time.After(10 * time.Second):
		t.Fatal("writers still blocked 10s after the server exited")
	}
	if code != 0 {
		t.Fatalf("%v: exit code %d, want 0:\n%s", sig, code, p.stderr)
	}
	if took > 5*time.Second {
		t.Errorf("%v: took %v to exit, want under 5s", sig, took)
	}
	c.close()

	p2 := startServe(t, dir)
	rows := scanAll(t, connect(t, p2.addr).client.Open("t"))
	for k := range rows {
		if k[0] == 'a' {
			delete(rows, k)
		}
	}
	t.Logf("%v: exit %d after %v; %d rows acknowledged, %d found after restart", sig, code, took.Round(time.Millisecond), len(acked), len(rows))
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged before the signal")
	}
	for _, k := range acked {
		r, ok := rows[k]
		if !ok {
			t.Errorf("acknowledged row %q lost", k)
		} else if msg := checkRow(r); msg != "" {
			t.Error(msg)
		}
	}
	for _, r := range rows {
		if msg := checkRow(r); msg != "" {
			t.Error(msg)
		}
	}
	p2.signal(syscall.SIGTERM, 10*time.Second)
}

// TestSecondServeSameDir: a second serve on a directory in use exits
// non-zero at once, says so, and the first server is unharmed.
func TestSecondServeSameDir(t *testing.T) {
	dir := t.TempDir()
	p := startServe(t, dir)
	c := connect(t, p.addr)
	c.createTable(t, "t")
	tbl := c.client.Open("t")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tbl.Apply(ctx, "before", rowMutation("before")); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	p2 := spawn(t, freeAddr(t), dir)
	code := p2.wait(5 * time.Second)
	msg := p2.stderr.String()
	t.Logf("second serve: exit %d after %v: %s", code, time.Since(start).Round(time.Millisecond), msg)
	if code == 0 {
		t.Errorf("second serve exited 0, want non-zero")
	}
	if !strings.Contains(msg, "in use") || !strings.Contains(msg, dir) {
		t.Errorf("second serve's stderr does not say %s is in use:\n%s", dir, msg)
	}

	if err := tbl.Apply(ctx, "after", rowMutation("after")); err != nil {
		t.Fatalf("first server after the second tried: %v", err)
	}
	rows := scanAll(t, tbl)
	if len(rows) != 2 || checkRow(rows["before"]) != "" || checkRow(rows["after"]) != "" {
		t.Errorf("first server rows = %v, want before and after whole", rows)
	}
	if code := p.signal(syscall.SIGTERM, 10*time.Second); code != 0 {
		t.Errorf("first serve exit code %d", code)
	}
}

// TestMemory: --memory serves, touches nothing under --data, and forgets
// everything when it stops.
func TestMemory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	p := startServe(t, dir, "--memory")
	c := connect(t, p.addr)
	c.createTable(t, "t")
	tbl := c.client.Open("t")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := 0; i < 100; i++ {
		key := fmt.Sprintf("m%03d", i)
		if err := tbl.Apply(ctx, key, rowMutation(key)); err != nil {
			t.Fatal(err)
		}
	}
	if rows := scanAll(t, tbl); len(rows) != 100 {
		t.Fatalf("read %d rows, want 100", len(rows))
	}
	if code := p.signal(syscall.SIGTERM, 10*time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	c.close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		entries, _ := os.ReadDir(dir)
		t.Errorf("--memory touched %s: stat err %v, %d entries", dir, err, len(entries))
	}

	p2 := startServe(t, dir, "--memory")
	c2 := connect(t, p2.addr)
	tables, err := c2.admin.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 0 {
		t.Errorf("after restart tables = %v, want none", tables)
	}
	if _, err := c2.client.Open("t").ReadRow(ctx, "m000"); err == nil {
		t.Errorf("read from the forgotten table succeeded")
	}
	p2.signal(syscall.SIGTERM, 10*time.Second)
}
