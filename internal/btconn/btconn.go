// Package btconn connects the official Cloud Bigtable Go clients to a
// server that speaks the API over plaintext gRPC without authentication, as
// Tabula and the emulator do. The shell and the benchmark both dial this
// way.
package btconn

import (
	"context"
	"fmt"

	"cloud.google.com/go/bigtable"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// maxMessageBytes lets a call carry the largest value a server accepts.
const maxMessageBytes = 1 << 28

// Dial returns a connection to addr (host:port). It connects lazily, on
// the first call.
func Dial(addr string) (*grpc.ClientConn, error) {
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageBytes), grpc.MaxCallSendMsgSize(maxMessageBytes)))
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return conn, nil
}

// Data returns a data client of the instance over conn. It reports no
// metrics and opens no sessions, which servers other than Cloud Bigtable
// do not offer.
func Data(ctx context.Context, conn *grpc.ClientConn, project, instance string) (*bigtable.Client, error) {
	cfg := bigtable.ClientConfig{MetricsProvider: bigtable.NoopMetricsProvider{}, DisableSession: true}
	return bigtable.NewClientWithConfig(ctx, project, instance, cfg, options(conn)...)
}

// Admin returns a table admin client of the instance over conn.
func Admin(ctx context.Context, conn *grpc.ClientConn, project, instance string) (*bigtable.AdminClient, error) {
	return bigtable.NewAdminClient(ctx, project, instance, options(conn)...)
}

func options(conn *grpc.ClientConn) []option.ClientOption {
	return []option.ClientOption{option.WithGRPCConn(conn), option.WithoutAuthentication()}
}
