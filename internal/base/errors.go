package base

import (
	"errors"
	"fmt"
)

// Error classes. Packages wrap these with context (%w); the API layer maps
// each class to one gRPC code in one place.
var (
	// ErrInvalidArgument marks bad input from a caller.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrNotFound marks an unknown table, family or tablet.
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists marks a table or family that exists.
	ErrAlreadyExists = errors.New("already exists")
	// ErrFailedPrecondition marks an operation the current state forbids.
	ErrFailedPrecondition = errors.New("failed precondition")
	// ErrResourceExhausted marks a request or row over a size limit.
	ErrResourceExhausted = errors.New("resource exhausted")
	// ErrUnavailable marks a server or tablet that cannot serve now; the
	// caller may retry.
	ErrUnavailable = errors.New("unavailable")
	// ErrClosed marks use of a closed component.
	ErrClosed = errors.New("closed")
	// ErrCorruption marks stored data that fails its checks.
	ErrCorruption = errors.New("corruption")
	// ErrBadKey marks an encoded key that does not parse.
	ErrBadKey = fmt.Errorf("base: malformed internal key: %w", ErrCorruption)
)

// CorruptionError names the file and offset where stored data failed a check.
type CorruptionError struct {
	File   string
	Offset int64
	Reason string
}

func (e *CorruptionError) Error() string {
	return fmt.Sprintf("corruption in %s at offset %d: %s", e.File, e.Offset, e.Reason)
}

// Unwrap makes errors.Is(err, ErrCorruption) true.
func (e *CorruptionError) Unwrap() error { return ErrCorruption }

// Corruptf returns a CorruptionError for file at offset.
func Corruptf(file string, offset int64, format string, args ...any) error {
	return &CorruptionError{File: file, Offset: offset, Reason: fmt.Sprintf(format, args...)}
}

// InvalidArgf returns an error of class ErrInvalidArgument.
func InvalidArgf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrInvalidArgument)
}

// NotFoundf returns an error of class ErrNotFound.
func NotFoundf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrNotFound)
}

// FailedPreconditionf returns an error of class ErrFailedPrecondition.
func FailedPreconditionf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrFailedPrecondition)
}

// AlreadyExistsf returns an error of class ErrAlreadyExists.
func AlreadyExistsf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrAlreadyExists)
}

// ResourceExhaustedf returns an error of class ErrResourceExhausted.
func ResourceExhaustedf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrResourceExhausted)
}
