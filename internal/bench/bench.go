// Package bench implements tabula bench: the Bigtable paper's benchmarks
// (§7: sequential and random writes and reads, reads from an in-memory
// locality group, scans), bulk writes through MutateRows and YCSB's core
// workloads A–F, run through the official Go client against any server
// that speaks the Cloud Bigtable API, one server or two side by side.
package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Run runs cfg's workloads on servers (one or two) and reports what they
// measured. progress, when not nil, receives a progress line per second.
func Run(ctx context.Context, cfg Config, servers []Server, progress io.Writer) (*Report, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rep := &Report{Machine: describeMachine(time.Now()), Config: cfg, Servers: servers}
	r := &runner{cfg: cfg, progress: progress}
	defer func() {
		for _, t := range r.targets {
			t.close()
		}
	}()
	for i := range rep.Servers {
		t, err := dial(ctx, &rep.Servers[i], "tabula", "bench")
		if err != nil {
			return nil, err
		}
		r.targets = append(r.targets, t)
	}
	for i := range rep.Servers {
		if rep.Servers[i].Label == "" {
			rep.Servers[i].Label = defaultLabel(rep.Servers, i)
		}
	}
	defer r.cleanup(context.WithoutCancel(ctx))
	wls, err := r.run(ctx)
	rep.Workloads = wls
	readServerRSS(rep.Servers)
	return rep, err
}

// readServerRSS fills in the servers' memory figures where a PID is known.
func readServerRSS(servers []Server) {
	for i := range servers {
		if servers[i].PID == 0 {
			continue
		}
		if rss, peak, err := readRSS(servers[i].PID); err == nil {
			servers[i].RSSBytes, servers[i].PeakRSSBytes = rss, peak
		}
	}
}

// flags are tabula bench's command line.
type flags struct {
	cfg               Config
	a, b              Server
	project, instance string
	workloads         string
	json, quiet       bool
	chart             string
}

func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("tabula bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.a.Addr, "addr", "localhost:8086", "server `host:port` to measure")
	fs.StringVar(&f.b.Addr, "vs", "", "second server `host:port` to measure side by side (optional)")
	fs.StringVar(&f.a.Label, "name", "", "label of --addr (default: tabula, or the address)")
	fs.StringVar(&f.b.Label, "vs-name", "", "label of --vs (default: tabula, or the address)")
	fs.IntVar(&f.a.PID, "pid", 0, "process id of --addr's server, to report its memory (Linux)")
	fs.IntVar(&f.b.PID, "vs-pid", 0, "process id of --vs's server, to report its memory (Linux)")
	fs.Int64Var(&f.cfg.Rows, "rows", 100_000, "rows in the row space (R)")
	fs.Int64Var(&f.cfg.Ops, "ops", 0, "operations per read, random-write and YCSB workload (default --rows)")
	fs.IntVar(&f.cfg.Clients, "clients", 16, "concurrent clients (N)")
	fs.IntVar(&f.cfg.Value, "value", 1000, "value size in bytes")
	fs.IntVar(&f.cfg.Batch, "batch", 100, "rows per MutateRows call in bulk-write and loads")
	fs.Int64Var(&f.cfg.ScanRows, "scan-rows", 10_000, "rows per ReadRows call in scan")
	fs.Int64Var(&f.cfg.MemRows, "mem-rows", 0, "rows of random-read-mem (default 100 MB of values)")
	fs.IntVar(&f.cfg.Rounds, "rounds", 4, "slices per workload; two servers alternate slice by slice")
	fs.StringVar(&f.workloads, "workload", "all", "comma-separated workloads: "+strings.Join(workloadNames(), ","))
	fs.StringVar(&f.cfg.Table, "table", "tabula-bench", "benchmark table (replaced, and deleted at the end)")
	fs.BoolVar(&f.cfg.Keep, "keep", false, "keep the benchmark tables")
	fs.Uint64Var(&f.cfg.Seed, "seed", 1, "seed of the workloads' randomness")
	fs.DurationVar(&f.cfg.MaxTime, "max-time", 0, "cap on each workload's timed part per server, e.g. 60s (seq-write and bulk-write are never cut)")
	fs.StringVar(&f.project, "project", "tabula", "project ID")
	fs.StringVar(&f.instance, "instance", "bench", "instance ID")
	fs.BoolVar(&f.json, "json", false, "print the report as JSON")
	fs.StringVar(&f.chart, "chart", "", "write a chart of the results to `file.svg`")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tabula bench [flags]\n\nMeasures a Bigtable-API server (and, with --vs, a second one side by side)\nwith the Bigtable paper's benchmarks, bulk writes and YCSB A-F.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return nil, fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	if f.workloads != "all" {
		f.cfg.Workloads = strings.Split(f.workloads, ",")
	}
	if f.chart != "" && !strings.HasSuffix(f.chart, ".svg") {
		return nil, fmt.Errorf("--chart: only SVG is written; name the file *.svg")
	}
	return f, f.cfg.withDefaults().Validate()
}

func (f *flags) servers() []Server {
	s := []Server{f.a}
	if f.b.Addr != "" {
		s = append(s, f.b)
	}
	return s
}

// Main runs tabula bench with args (after the verb) and returns the exit
// code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "tabula bench: %v\n", err)
		return 2
	}
	var progress io.Writer = stderr
	if f.quiet {
		progress = nil
	}
	rep, err := Run(ctx, f.cfg, f.servers(), progress)
	if rep != nil && len(rep.Workloads) > 0 {
		rep.Command = "tabula bench " + strings.Join(args, " ")
		if werr := f.write(rep, stdout); werr != nil {
			fmt.Fprintf(stderr, "tabula bench: %v\n", werr)
			return 1
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "tabula bench: %v\n", err)
		return 1
	}
	return 0
}

// defaultLabel is "tabula" for a Tabula server and the address otherwise,
// made unique.
func defaultLabel(servers []Server, i int) string {
	if servers[i].Tabula && (len(servers) == 1 || !servers[1-i].Tabula) {
		return "tabula"
	}
	return servers[i].Addr
}

// write prints the report and writes the chart.
func (f *flags) write(rep *Report, stdout io.Writer) error {
	if f.json {
		if err := rep.WriteJSON(stdout); err != nil {
			return err
		}
	} else if err := rep.WriteTable(stdout); err != nil {
		return err
	}
	if f.chart == "" {
		return nil
	}
	out, err := os.Create(f.chart)
	if err != nil {
		return err
	}
	if err := rep.WriteSVG(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
