package api

import (
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	btapb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"google.golang.org/grpc"

	"github.com/tabuladb/tabula/internal/adminpb"
	"github.com/tabuladb/tabula/internal/tablet"
)

// Options configure a Server.
type Options struct {
	// Host holds the tablets; required.
	Host *tablet.Host
	// Clock returns the time; default time.Now.
	Clock func() time.Time
	// Seed seeds the row-sample filter's randomness; default from the clock.
	Seed uint64
	// Logger receives errors no client sees; default slog.Default().
	Logger *slog.Logger
}

// Server serves the Bigtable APIs on a host.
type Server struct {
	host   *tablet.Host
	clock  func() time.Time
	logger *slog.Logger

	// adminMu serializes schema changes, which read, change and write a
	// table's whole schema.
	adminMu sync.Mutex

	randMu sync.Mutex
	rand   *rand.Rand

	// instances are the instances created through the instance admin API,
	// beside the implicit ones every table name brings.
	inst instances
}

// New returns a server for o.Host.
func New(o Options) *Server {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Seed == 0 {
		o.Seed = uint64(o.Clock().UnixNano())
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Server{host: o.Host, clock: o.Clock, logger: o.Logger, rand: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))}
}

// Register adds the data, table admin, instance admin and Tabula admin
// services to g.
func (s *Server) Register(g grpc.ServiceRegistrar) {
	btpb.RegisterBigtableServer(g, &dataServer{s: s})
	btapb.RegisterBigtableTableAdminServer(g, &tableAdminServer{s: s})
	btapb.RegisterBigtableInstanceAdminServer(g, &instanceAdminServer{s: s})
	adminpb.RegisterTabulaAdminServer(g, &extServer{s: s})
}

// random returns a float in [0, 1) for the row-sample filter.
func (s *Server) random() float64 {
	s.randMu.Lock()
	defer s.randMu.Unlock()
	return s.rand.Float64()
}
