// Command tabula runs a Tabula server (tabula serve), the benchmarks
// (tabula bench -h), and with any other verb, the shell that talks to a
// Bigtable-API endpoint (tabula help).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/tabuladb/tabula/internal/bench"
	"github.com/tabuladb/tabula/internal/shell"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
}

func run(ctx context.Context, args []string) int {
	if len(args) > 0 && args[0] == "serve" {
		return serve(ctx, args[1:], os.Stderr)
	}
	if len(args) > 0 && args[0] == "bench" {
		return bench.Main(ctx, args[1:], os.Stdout, os.Stderr)
	}
	return shell.Main(ctx, args, os.Stdout, os.Stderr)
}
