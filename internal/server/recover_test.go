package server

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestPanicBecomesInternal(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	info := &grpc.UnaryServerInfo{FullMethod: "/x/Y"}
	_, err := recoverUnary(log)(context.Background(), nil, info, func(context.Context, any) (any, error) { panic("boom") })
	if status.Code(err) != codes.Internal {
		t.Fatalf("unary: %v", err)
	}
	err = recoverStream(log)(nil, nil, &grpc.StreamServerInfo{FullMethod: "/x/Z"}, func(any, grpc.ServerStream) error { panic("boom") })
	if status.Code(err) != codes.Internal {
		t.Fatalf("stream: %v", err)
	}
}
