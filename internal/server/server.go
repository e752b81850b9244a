// Package server runs Tabula in one process: a tablet host on a directory
// (or in memory) and the gRPC services of package api on a listener, with
// an orderly shutdown.
package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"google.golang.org/grpc"

	"github.com/tabuladb/tabula/internal/api"
	"github.com/tabuladb/tabula/internal/tablet"
	"github.com/tabuladb/tabula/internal/vfs"
)

// Options configure a server.
type Options struct {
	// Addr is the address to listen on; default "localhost:8086". Port 0
	// picks a free port; Server.Addr tells which.
	Addr string
	// Dir is the data directory; default "./tabula-data". Ignored when
	// Memory is set.
	Dir string
	// Memory keeps everything in memory: nothing is written to disk and
	// nothing survives the process.
	Memory bool
	// SplitSize is the size at which a tablet splits; default 128 MiB.
	SplitSize int64
	// MemtableSize, MemtableBudget, BlockCacheSize and RowCacheSize are
	// passed to the tablet host; zero means the host's default.
	MemtableSize, MemtableBudget, BlockCacheSize, RowCacheSize int64
	// ShutdownTimeout bounds how long Stop waits for requests in flight
	// before it cancels them; default 10 s.
	ShutdownTimeout time.Duration
	// Logger receives the server's log; default slog.Default().
	Logger *slog.Logger
}

// maxMessageBytes admits a request or response holding a 100 MiB value.
const maxMessageBytes = 256 << 20

// streamWorkers is how many goroutines serve RPCs, each in turn, before
// gRPC starts one per RPC for the excess. A worker's stack has grown to what
// a handler needs already; a new goroutine's grows, by copying, on every
// call, which cost 7% of the server's time under single-row writes.
const streamWorkers = 64

func (o Options) withDefaults() Options {
	if o.Addr == "" {
		o.Addr = "localhost:8086"
	}
	if o.Dir == "" {
		o.Dir = "./tabula-data"
	}
	if o.SplitSize == 0 {
		o.SplitSize = 128 << 20
	}
	if o.ShutdownTimeout == 0 {
		o.ShutdownTimeout = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Server is a running server.
type Server struct {
	opts   Options
	host   *tablet.Host
	grpc   *grpc.Server
	lis    net.Listener
	served chan error
}

// Start opens the host and starts serving. It fails, touching nothing, if
// another process serves the same directory.
func Start(o Options) (*Server, error) {
	o = o.withDefaults()
	host, err := openHost(o)
	if err != nil {
		return nil, err
	}
	lis, err := net.Listen("tcp", o.Addr)
	if err != nil {
		host.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	g := grpc.NewServer(grpc.MaxRecvMsgSize(maxMessageBytes), grpc.MaxSendMsgSize(maxMessageBytes),
		grpc.NumStreamWorkers(streamWorkers),
		grpc.ChainUnaryInterceptor(recoverUnary(o.Logger)), grpc.ChainStreamInterceptor(recoverStream(o.Logger)))
	api.New(api.Options{Host: host, Logger: o.Logger}).Register(g)
	s := &Server{opts: o, host: host, grpc: g, lis: lis, served: make(chan error, 1)}
	go func() { s.served <- g.Serve(lis) }()
	o.Logger.Info("tabula serving", "addr", lis.Addr().String(), "data", s.where())
	return s, nil
}

func (s *Server) where() string {
	if s.opts.Memory {
		return "memory"
	}
	return s.opts.Dir
}

// ErrInUse is returned by Start when another process serves the directory.
var ErrInUse = errors.New("server: the data directory is in use by another tabula process")

func openHost(o Options) (*tablet.Host, error) {
	fsys, dir := vfs.NewOS(), o.Dir
	if o.Memory {
		fsys, dir = vfs.NewMem(), "/tabula"
	}
	h, err := tablet.Open(tablet.Options{
		FS: fsys, Dir: dir, SplitSize: o.SplitSize, Logger: o.Logger,
		MemtableSize: o.MemtableSize, MemtableBudget: o.MemtableBudget, BlockCacheSize: o.BlockCacheSize, RowCacheSize: o.RowCacheSize,
	})
	if errors.Is(err, vfs.ErrLocked) {
		return nil, fmt.Errorf("%w: %s", ErrInUse, dir)
	}
	return h, err
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.lis.Addr().String() }

// Host returns the server's tablet host.
func (s *Server) Host() *tablet.Host { return s.host }

// Stop stops accepting requests, lets those in flight finish (cancelling
// them after ShutdownTimeout), and closes the host. Every acknowledged
// write is already durable; the host's log is closed cleanly.
func (s *Server) Stop() error {
	done := make(chan struct{})
	go func() { s.grpc.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(s.opts.ShutdownTimeout):
		s.grpc.Stop()
		<-done
	}
	err := s.host.Close()
	s.opts.Logger.Info("tabula stopped", "err", err)
	return err
}

// Wait returns when the server stops serving, with the reason.
func (s *Server) Wait() error {
	err := <-s.served
	s.served <- err
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}
