package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/debug"
	"time"

	"github.com/tabuladb/tabula/internal/server"
)

// serve runs the server until ctx is cancelled (SIGINT, SIGTERM), then
// stops it in order: no new requests, requests in flight finish, the host
// closes. It returns the process exit code.
func serve(ctx context.Context, args []string, stderr io.Writer) int {
	o, debugAddr, err := serveFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if debugAddr != "" {
		stopDebug, err := serveDebug(debugAddr)
		if err != nil {
			fmt.Fprintf(stderr, "tabula serve: --debug-addr: %v\n", err)
			return 1
		}
		defer stopDebug()
	}
	setMemoryLimit(o)
	s, err := server.Start(o)
	if err != nil {
		fmt.Fprintf(stderr, "tabula serve: %v\n", err)
		return 1
	}
	select {
	case <-ctx.Done():
	case <-waitChan(s):
	}
	if err := s.Stop(); err != nil {
		fmt.Fprintf(stderr, "tabula serve: stop: %v\n", err)
		return 1
	}
	return 0
}

func waitChan(s *server.Server) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- s.Wait() }()
	return ch
}

// setMemoryLimit gives the Go runtime a soft memory limit of the engine's
// budgets plus room for requests, unless GOMEMLIMIT sets one. The block
// cache and memtables live on the Go heap; without a limit the collector
// lets the heap grow to twice what they hold. With --memory the data
// itself is on the heap, so there is no limit.
func setMemoryLimit(o server.Options) {
	if os.Getenv("GOMEMLIMIT") != "" || o.Memory {
		return
	}
	budgets := o.BlockCacheSize + o.MemtableBudget + o.RowCacheSize
	debug.SetMemoryLimit(budgets + budgets/4 + 128<<20)
}

// serveDebug serves Go's profiles (/debug/pprof/) on addr.
func serveDebug(addr string) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return func() { hs.Close() }, nil
}

func serveFlags(args []string, stderr io.Writer) (server.Options, string, error) {
	fs := flag.NewFlagSet("tabula serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o server.Options
	fs.StringVar(&o.Addr, "addr", "localhost:8086", "address to serve gRPC on (host:port)")
	fs.StringVar(&o.Dir, "data", "./tabula-data", "data directory")
	fs.BoolVar(&o.Memory, "memory", false, "keep everything in memory; nothing is written to disk")
	fs.Int64Var(&o.SplitSize, "split-size", 128<<20, "tablet size in bytes at which a tablet splits")
	fs.Int64Var(&o.BlockCacheSize, "block-cache", 256<<20, "block cache size in bytes")
	fs.Int64Var(&o.MemtableSize, "memtable", 64<<20, "memtable size in bytes, per tablet")
	fs.Int64Var(&o.MemtableBudget, "memtable-budget", 256<<20, "bytes all memtables together may hold before the largest are flushed")
	fs.Int64Var(&o.RowCacheSize, "row-cache", 0, "row cache size in bytes (0: off)")
	quiet := fs.Bool("quiet", false, "log only warnings and errors")
	debugAddr := fs.String("debug-addr", "", "serve Go profiles (/debug/pprof/) over HTTP on `host:port`")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tabula serve [flags]\n\nServes the Cloud Bigtable API; point clients at it with BIGTABLE_EMULATOR_HOST=ADDR.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, "", err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return o, "", fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	level := slog.LevelInfo
	if *quiet {
		level = slog.LevelWarn
	}
	o.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	return o, *debugAddr, nil
}
