package server

import (
	"context"
	"log/slog"
	"runtime/debug"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// recoverUnary turns a panic in a handler into an Internal status and a
// logged stack, so that no panic reaches a client or ends the process.
func recoverUnary(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
		defer recoverTo(log, info.FullMethod, &err)
		return h(ctx, req)
	}
}

// recoverStream is recoverUnary for streaming calls.
func recoverStream(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
		defer recoverTo(log, info.FullMethod, &err)
		return h(srv, ss)
	}
}

func recoverTo(log *slog.Logger, method string, err *error) {
	if p := recover(); p != nil {
		log.Error("panic in handler", "method", method, "panic", p, "stack", string(debug.Stack()))
		*err = status.Errorf(codes.Internal, "internal error in %s", method)
	}
}
