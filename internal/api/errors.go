package api

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tabuladb/tabula/internal/base"
)

// classes maps the engine's error classes to gRPC codes, first match wins.
var classes = []struct {
	err  error
	code codes.Code
}{
	{base.ErrInvalidArgument, codes.InvalidArgument},
	{base.ErrNotFound, codes.NotFound},
	{base.ErrAlreadyExists, codes.AlreadyExists},
	{base.ErrFailedPrecondition, codes.FailedPrecondition},
	{base.ErrResourceExhausted, codes.ResourceExhausted},
	{base.ErrUnavailable, codes.Unavailable},
	{base.ErrClosed, codes.Unavailable},
	{context.Canceled, codes.Canceled},
	{context.DeadlineExceeded, codes.DeadlineExceeded},
	{base.ErrCorruption, codes.DataLoss},
}

// toStatus is the one place an error becomes a gRPC status. Errors that
// already carry a status keep it; errors of no known class are Internal.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	for _, c := range classes {
		if errors.Is(err, c.err) {
			return status.Error(c.code, err.Error())
		}
	}
	return status.Error(codes.Internal, err.Error())
}

// invalidf returns an InvalidArgument error for bad request fields.
func invalidf(format string, args ...any) error {
	return base.InvalidArgf("api: "+format, args...)
}

// notFoundFamily returns a NotFound error for an unknown column family.
func notFoundFamily(name string) error {
	return base.NotFoundf("api: column family %q", name)
}
