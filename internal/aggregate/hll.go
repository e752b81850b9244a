package aggregate

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/tabuladb/tabula/internal/base"
)

// A HyperLogLog sketch has 2^14 one-byte registers. An element's 64-bit
// hash picks a register with its top 14 bits; the register keeps the
// largest rank seen, where the rank is the number of leading zeros of the
// remaining 50 bits plus one (51 when they are all zero).
//
// Serialized sketch (stored on disk; docs/format/aggregate.md):
//
//	offset  size  field
//	0       1     version (1)
//	1       1     precision p (14)
//	2       1     kind: 1 sparse, 2 dense
//	3       ...   body
//
// A sparse body is a run of 3-byte entries, one per nonzero register:
// the register index as a big-endian uint16 (< 2^p), then its value
// (1..51); indexes strictly increase. A dense body is exactly 2^p bytes,
// register i's value (0..51) at offset i. Encoders write whichever is
// shorter: sparse when 3×(nonzero registers) < 2^p, dense otherwise.
// Readers accept either. The empty sketch is the 3-byte header of a
// sparse sketch with no entries.
const (
	hllVersion   = 1
	hllPrecision = 14
	hllRegisters = 1 << hllPrecision
	hllMaxRank   = 64 - hllPrecision + 1
	hllHeader    = 3
	hllEntry     = 3

	kindSparse = 1
	kindDense  = 2
)

// registers is a sketch's register set.
type registers [hllRegisters]uint8

// add folds the hash of one element.
func (r *registers) add(hash uint64) {
	idx := hash >> (64 - hllPrecision)
	// The sentinel bit below the 50 rank bits caps the rank at 51.
	rank := uint8(bits.LeadingZeros64(hash<<hllPrecision|1<<(hllPrecision-1))) + 1
	if rank > r[idx] {
		r[idx] = rank
	}
}

// merge raises register idx to val if val is larger; it has the shape of
// walkSketch's callback.
func (r *registers) merge(idx int, val uint8) {
	if val > r[idx] {
		r[idx] = val
	}
}

// encode serializes the registers in the shorter form.
func (r *registers) encode() []byte {
	nonzero := 0
	for _, v := range r {
		if v != 0 {
			nonzero++
		}
	}
	if nonzero*hllEntry >= hllRegisters {
		b := make([]byte, hllHeader, hllHeader+hllRegisters)
		b[0], b[1], b[2] = hllVersion, hllPrecision, kindDense
		return append(b, r[:]...)
	}
	b := make([]byte, hllHeader, hllHeader+nonzero*hllEntry)
	b[0], b[1], b[2] = hllVersion, hllPrecision, kindSparse
	for i, v := range r {
		if v != 0 {
			b = binary.BigEndian.AppendUint16(b, uint16(i))
			b = append(b, v)
		}
	}
	return b
}

// walkSketch checks a serialized sketch and, if fn is not nil and the
// sketch is well formed, calls fn for every nonzero register in index
// order. Errors wrap base.ErrInvalidArgument; fn is not called then.
func walkSketch(state []byte, fn func(idx int, val uint8)) error {
	if err := checkSketch(state); err != nil {
		return err
	}
	if fn == nil {
		return nil
	}
	body := state[hllHeader:]
	if state[2] == kindDense {
		for i, v := range body {
			if v != 0 {
				fn(i, v)
			}
		}
		return nil
	}
	for ; len(body) > 0; body = body[hllEntry:] {
		fn(int(binary.BigEndian.Uint16(body)), body[2])
	}
	return nil
}

func checkSketch(state []byte) error {
	if len(state) < hllHeader {
		return base.InvalidArgf("aggregate: hll sketch is %d bytes, want at least %d", len(state), hllHeader)
	}
	if state[0] != hllVersion {
		return base.InvalidArgf("aggregate: hll sketch version %d, want %d", state[0], hllVersion)
	}
	if state[1] != hllPrecision {
		return base.InvalidArgf("aggregate: hll sketch precision %d, want %d", state[1], hllPrecision)
	}
	switch state[2] {
	case kindSparse:
		return checkSparse(state[hllHeader:])
	case kindDense:
		return checkDense(state[hllHeader:])
	}
	return base.InvalidArgf("aggregate: hll sketch kind %d, want %d (sparse) or %d (dense)", state[2], kindSparse, kindDense)
}

func checkSparse(body []byte) error {
	if len(body)%hllEntry != 0 {
		return base.InvalidArgf("aggregate: sparse hll body is %d bytes, not a multiple of %d", len(body), hllEntry)
	}
	prev := -1
	for off := 0; off < len(body); off += hllEntry {
		idx, val := int(binary.BigEndian.Uint16(body[off:])), body[off+2]
		switch {
		case idx >= hllRegisters:
			return base.InvalidArgf("aggregate: sparse hll register index %d out of range", idx)
		case idx <= prev:
			return base.InvalidArgf("aggregate: sparse hll register index %d after %d", idx, prev)
		case val == 0 || val > hllMaxRank:
			return base.InvalidArgf("aggregate: sparse hll register %d has value %d, want 1..%d", idx, val, hllMaxRank)
		}
		prev = idx
	}
	return nil
}

func checkDense(body []byte) error {
	if len(body) != hllRegisters {
		return base.InvalidArgf("aggregate: dense hll body is %d bytes, want %d", len(body), hllRegisters)
	}
	for i, v := range body {
		if v > hllMaxRank {
			return base.InvalidArgf("aggregate: dense hll register %d has value %d, want 0..%d", i, v, hllMaxRank)
		}
	}
	return nil
}

// Estimate returns the number of distinct elements a serialized HLL
// sketch has seen, estimated: the standard HyperLogLog estimator, with
// linear counting while the estimate is at most 2.5 × 2^14 and some
// register is still zero. Its relative standard error is about 0.8%.
// Errors wrap base.ErrInvalidArgument.
func Estimate(state []byte) (uint64, error) {
	var r registers
	if err := walkSketch(state, r.merge); err != nil {
		return 0, err
	}
	return r.estimate(), nil
}

func (r *registers) estimate() uint64 {
	const m = float64(hllRegisters)
	sum, zeros := 0.0, 0
	for _, v := range r {
		sum += math.Ldexp(1, -int(v))
		if v == 0 {
			zeros++
		}
	}
	alpha := 0.7213 / (1 + 1.079/m)
	e := alpha * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return uint64(math.Round(e))
}
