// Package aggregate holds the aggregate cells of Cloud Bigtable's aggregate
// column families: Sum, Min and Max over big-endian int64 values, and a
// HyperLogLog sketch that counts distinct elements. A cell's inputs
// (AddToCell) and accumulator states (MergeToCell, or a folded result) are
// folded by a Folder in any order: every fold is commutative and
// associative, so readers and compactions may fold newest first.
package aggregate

import (
	"strconv"
	"strings"

	"github.com/tabuladb/tabula/internal/base"
)

// Type is a family's aggregate type. The values are stored on disk and
// never change meaning.
type Type uint8

const (
	// None marks a family that does not aggregate.
	None Type = 0
	// Sum adds int64 values; it wraps around like int64 two's complement
	// arithmetic.
	Sum Type = 1
	// Min keeps the smallest int64 value.
	Min Type = 2
	// Max keeps the largest int64 value.
	Max Type = 3
	// HLL counts distinct elements with a HyperLogLog sketch.
	HLL Type = 4
)

// String returns the type's name as ParseType reads it.
func (t Type) String() string {
	switch t {
	case None:
		return "none"
	case Sum:
		return "sum"
	case Min:
		return "min"
	case Max:
		return "max"
	case HLL:
		return "hll"
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// ParseType reads an aggregate type name: "sum", "min", "max" or "hll"
// (also "hllpp" and "hyperloglog"), in any case. It does not accept "none".
// Errors wrap base.ErrInvalidArgument.
func ParseType(s string) (Type, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "sum":
		return Sum, nil
	case "min":
		return Min, nil
	case "max":
		return Max, nil
	case "hll", "hllpp", "hyperloglog":
		return HLL, nil
	}
	return None, base.InvalidArgf("aggregate: unknown type %q", s)
}

// ValidateAdd checks one AddToCell input: 8 bytes (a big-endian int64) for
// Sum, Min and Max; any bytes, the element, for HLL. Errors wrap
// base.ErrInvalidArgument.
func ValidateAdd(t Type, input []byte) error {
	switch t {
	case Sum, Min, Max:
		return checkInt(t, input)
	case HLL:
		return nil
	}
	return notAggregate(t)
}

// ValidateMerge checks one MergeToCell input or stored accumulator state:
// 8 bytes for Sum, Min and Max; a serialized sketch for HLL. Errors wrap
// base.ErrInvalidArgument.
func ValidateMerge(t Type, state []byte) error {
	switch t {
	case Sum, Min, Max:
		return checkInt(t, state)
	case HLL:
		return walkSketch(state, nil)
	}
	return notAggregate(t)
}

func checkInt(t Type, b []byte) error {
	if len(b) != 8 {
		return base.InvalidArgf("aggregate: %s value is %d bytes, want 8 (big-endian int64)", t, len(b))
	}
	return nil
}

func notAggregate(t Type) error {
	return base.InvalidArgf("aggregate: %s is not an aggregate type", t)
}
