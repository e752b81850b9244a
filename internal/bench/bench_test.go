package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/bigtable/bttest"

	"github.com/tabuladb/tabula/internal/server"
)

// startTabula serves Tabula from a temporary directory.
func startTabula(t *testing.T) string {
	t.Helper()
	s, err := server.Start(server.Options{Addr: "127.0.0.1:0", Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s.Addr()
}

// startEmulator serves the official emulator's library in process.
func startEmulator(t *testing.T) string {
	t.Helper()
	s, err := bttest.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.Addr
}

func smallConfig() Config {
	return Config{Rows: 300, Ops: 200, Clients: 4, Value: 100, Batch: 40, ScanRows: 70, MemRows: 150, Rounds: 2}
}

// Every workload runs on Tabula and on the emulator, side by side,
// and every operation succeeds: reads check that they got the row written.
func TestRunTabulaVsEmulator(t *testing.T) {
	ctx := context.Background()
	servers := []Server{{Addr: startTabula(t)}, {Addr: startEmulator(t), Label: "emulator"}}
	rep, err := Run(ctx, smallConfig(), servers, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{rep.Servers[0].Label, rep.Servers[1].Label}; got[0] != "tabula" || got[1] != "emulator" {
		t.Errorf("labels %v, want [tabula emulator]", got)
	}
	if !rep.Servers[0].Tabula || rep.Servers[1].Tabula {
		t.Errorf("admin extension detected as %v, %v; want true, false", rep.Servers[0].Tabula, rep.Servers[1].Tabula)
	}
	if len(rep.Workloads) != len(workloads) {
		t.Fatalf("%d workloads reported, want %d", len(rep.Workloads), len(workloads))
	}
	for _, wl := range rep.Workloads {
		for i, res := range wl.Results {
			checkResult(t, wl, rep.Servers[i], res)
		}
	}
}

func checkResult(t *testing.T, wl WorkloadReport, s Server, res Result) {
	t.Helper()
	if wl.Name == "random-read-mem" && !s.Tabula {
		if res.Skipped == "" {
			t.Errorf("%s on %s ran; want skipped", wl.Name, s.Label)
		}
		return
	}
	if res.Skipped != "" || res.Errors > 0 || res.Rate <= 0 || res.P50 <= 0 || res.P999 < res.P50 {
		t.Errorf("%s on %s: %+v", wl.Name, s.Label, res)
	}
	cfg := smallConfig()
	want := map[string]int64{"seq-write": cfg.Rows, "scan": cfg.Rows, "bulk-write": cfg.Rows, "random-read": cfg.Ops, "seq-read": cfg.Ops}
	if n, ok := want[wl.Name]; ok && res.Rows != n {
		t.Errorf("%s on %s touched %d rows, want %d", wl.Name, s.Label, res.Rows, n)
	}
}

// A server that loses writes is caught: the reads count errors.
func TestReadsCheckRows(t *testing.T) {
	ctx := context.Background()
	cfg := smallConfig()
	cfg.Workloads = []string{"seq-write"}
	cfg.Keep = true
	addr := startTabula(t)
	if _, err := Run(ctx, cfg, []Server{{Addr: addr}}, nil); err != nil {
		t.Fatal(err)
	}
	// A fresh run replaces the table; reading without writing first loads
	// the rows, so drop them behind the runner's back instead.
	r := &runner{cfg: cfg.withDefaults()}
	tg, err := dial(ctx, &Server{Addr: addr}, "tabula", "bench")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.close()
	if err := tg.admin.DropRowRange(ctx, r.cfg.Table, "00000001"); err != nil {
		t.Fatal(err)
	}
	r.targets = []*target{tg}
	tg.loaded = true
	wr, err := r.runWorkload(ctx, lookupWorkload("seq-read"))
	if err != nil {
		t.Fatal(err)
	}
	if res := wr.Results[0]; res.Errors == 0 || !strings.Contains(res.Error, "row") {
		t.Errorf("seq-read over missing rows: %+v; want errors", res)
	}
}

// --max-time stops a workload early, and says so, but never cuts the
// writes that load the rows the reads check.
func TestMaxTime(t *testing.T) {
	cfg := smallConfig()
	cfg.Workloads = []string{"seq-write", "random-read"}
	cfg.MaxTime = time.Nanosecond
	rep, err := Run(context.Background(), cfg, []Server{{Addr: startTabula(t)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := rep.Workloads[0].Results[0]; w.Capped || w.Rows != cfg.Rows || w.Errors > 0 {
		t.Errorf("seq-write: %+v; want every row written", w)
	}
	r := rep.Workloads[1].Results[0]
	if !r.Capped || r.Ops >= r.Planned || r.Planned != cfg.Ops || r.Errors > 0 {
		t.Errorf("random-read: %+v; want capped short of %d operations", r, cfg.Ops)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "stopped by --max-time") {
		t.Errorf("table does not note the cap:\n%s", table.String())
	}
}

// The report prints as a table, as JSON and as SVG.
func TestReportFormats(t *testing.T) {
	rep := &Report{
		Config:  smallConfig(),
		Servers: []Server{{Label: "tabula"}, {Label: "emulator", PID: 1, PeakRSSBytes: 3 << 30, RSSBytes: 2 << 30}},
		Workloads: []WorkloadReport{
			{Name: "random-read", Unit: "ops/s", Paper: 1212, Results: []Result{{Rate: 20000, P50: 1e6}, {Rate: 10000, P50: 2e6}}},
			{Name: "random-read-mem", Unit: "ops/s", Results: []Result{{Rate: 30000}, {Skipped: "no extension"}}},
		},
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tabula/emulator", "2.00", "20,000", "1,212", "skipped: no extension", "3072 MiB peak"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Workloads[0].Results[1].Rate != 10000 {
		t.Errorf("JSON round trip: %v, %+v", err, back.Workloads)
	}
	var svg bytes.Buffer
	if err := rep.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg.Bytes(), new(struct{})); err != nil {
		t.Errorf("SVG is not XML: %v", err)
	}
}

// The zipfian draws stay in range, favour low ranks, and follow n as it
// grows.
func TestZipfian(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	z := newZipfian(1000, zipfConstant)
	counts := make([]int, 2000)
	for range 100_000 {
		v := z.next(rnd.Float64(), 1000)
		if v < 0 || v >= 1000 {
			t.Fatalf("draw %d outside [0, 1000)", v)
		}
		counts[v]++
	}
	if counts[0] < counts[1] || counts[1] < counts[10] || counts[10] < counts[500] {
		t.Errorf("counts not falling with rank: 0:%d 1:%d 10:%d 500:%d", counts[0], counts[1], counts[10], counts[500])
	}
	for range 10_000 {
		if v := z.next(rnd.Float64(), 2000); v < 0 || v >= 2000 {
			t.Fatalf("draw %d outside [0, 2000)", v)
		}
	}
	if z.n != 2000 {
		t.Errorf("ζ summed to %d, want 2000", z.n)
	}
}

// Flags reach the configuration; bad ones are refused.
func TestParseFlags(t *testing.T) {
	f, err := parseFlags(strings.Fields("--addr a:1 --vs b:2 --rows 10 --clients 3 --workload seq-write,ycsb-a --chart x.svg"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s := f.servers(); len(s) != 2 || s[1].Addr != "b:2" || f.cfg.Rows != 10 || f.cfg.Clients != 3 || len(f.cfg.Workloads) != 2 {
		t.Errorf("parsed %+v", f)
	}
	for _, bad := range []string{"--workload nope", "--chart x.png", "--value 5", "--rows -1", "extra"} {
		if _, err := parseFlags(strings.Fields(bad), io.Discard); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
