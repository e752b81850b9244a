// Package base is Tabula's leaf vocabulary: the internal key and its order,
// entry kinds, timestamps, the iterator contract shared by memtables,
// SSTables and merged views, and the error classes. It imports nothing
// internal.
package base

import (
	"bytes"
	"encoding/binary"
	"math"
)

// Kind says what an entry in the sorted map means.
type Kind uint8

const (
	// KindPut is a cell value.
	KindPut Kind = 1
	// KindDeleteCells masks the cells of one column whose timestamps lie in
	// [start, end); the range is the entry's value (see EncodeTimeRange). A
	// whole-column delete is the range [MinTimestamp, TombstoneTimestamp).
	KindDeleteCells Kind = 2
	// KindDeleteFamily masks every cell of one family in the row.
	KindDeleteFamily Kind = 3
	// KindDeleteRow masks every cell of the row.
	KindDeleteRow Kind = 4
	// KindAggAdd is one raw input to an aggregate cell (AddToCell).
	KindAggAdd Kind = 5
	// KindAggMerge is an aggregate state merged into a cell (MergeToCell).
	KindAggMerge Kind = 6
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k >= KindPut && k <= KindAggMerge }

// IsTombstone reports whether k masks older entries.
func (k Kind) IsTombstone() bool {
	return k == KindDeleteCells || k == KindDeleteFamily || k == KindDeleteRow
}

func (k Kind) String() string {
	switch k {
	case KindPut:
		return "put"
	case KindDeleteCells:
		return "delcells"
	case KindDeleteFamily:
		return "delfamily"
	case KindDeleteRow:
		return "delrow"
	case KindAggAdd:
		return "aggadd"
	case KindAggMerge:
		return "aggmerge"
	}
	return "kind?"
}

const (
	// TombstoneTimestamp is the timestamp at which tombstones are placed, so
	// that they sort before every cell they can mask. No cell may carry it.
	TombstoneTimestamp int64 = math.MaxInt64
	// MaxTimestamp is the largest timestamp a cell may carry.
	MaxTimestamp int64 = math.MaxInt64 - 1
	// MinTimestamp is the smallest timestamp a cell may carry.
	MinTimestamp int64 = 0
	// MaxSeq is the largest sequence number (56 bits).
	MaxSeq uint64 = 1<<56 - 1
)

// Key is a decoded internal key. Order: Row ↑, Family ↑, Qualifier ↑,
// Timestamp ↓, Seq ↓. Sequence numbers are unique within a tablet, so the
// kind never decides order.
type Key struct {
	Row       []byte
	Family    string
	Qualifier []byte
	Timestamp int64
	Seq       uint64
	Kind      Kind
}

// Internal keys are encoded so that bytes.Compare gives the order above:
//
//	escaped(row) escaped(family) escaped(qualifier) ts↓[8] trailer↓[8]
//
// escaped(x) writes x with every 0x00 byte as 0x00 0xFF and ends with
// 0x00 0x01, which keeps byte order and makes each part self-delimiting.
// ts↓ is the big-endian complement of the order-flipped timestamp and
// trailer↓ the complement of seq<<8|kind, so both sort descending.
const (
	escByte   = 0x00
	escEscape = 0xFF
	escEnd    = 0x01
	// TrailerLen is the length of the fixed timestamp and trailer suffix.
	TrailerLen = 16
)

// AppendEncoded appends the encoding of k to dst.
func AppendEncoded(dst []byte, k *Key) []byte {
	dst = appendEscaped(dst, k.Row)
	dst = appendEscaped(dst, []byte(k.Family))
	dst = appendEscaped(dst, k.Qualifier)
	return appendTrailer(dst, k.Timestamp, k.Seq, k.Kind)
}

// Encode returns the encoding of k.
func Encode(k *Key) []byte {
	return AppendEncoded(make([]byte, 0, EncodedLen(k)), k)
}

// EncodedLen is len(Encode(k)).
func EncodedLen(k *Key) int {
	return escapedLen(k.Row) + escapedLen([]byte(k.Family)) + escapedLen(k.Qualifier) + TrailerLen
}

func escapedLen(b []byte) int { return len(b) + bytes.Count(b, []byte{escByte}) + 2 }

func appendTrailer(dst []byte, ts int64, seq uint64, kind Kind) []byte {
	dst = binary.BigEndian.AppendUint64(dst, ^(uint64(ts) ^ 1<<63))
	return binary.BigEndian.AppendUint64(dst, ^(seq<<8 | uint64(kind)))
}

func appendEscaped(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, escByte)
		if i < 0 {
			dst = append(dst, b...)
			break
		}
		dst = append(dst, b[:i+1]...)
		dst = append(dst, escEscape)
		b = b[i+1:]
	}
	return append(dst, escByte, escEnd)
}

// RowPrefix returns the encoding of a row as it begins every key of that
// row: every key of the row has it as a prefix, and no key of another row
// does.
func RowPrefix(row []byte) []byte { return appendEscaped(nil, row) }

// AppendRowPrefix appends RowPrefix(row) to dst.
func AppendRowPrefix(dst, row []byte) []byte { return appendEscaped(dst, row) }

// ColumnPrefix returns the encoding of (row, family, qualifier) that every
// key of that column has as a prefix.
func ColumnPrefix(row []byte, family string, qualifier []byte) []byte {
	dst := appendEscaped(nil, row)
	dst = appendEscaped(dst, []byte(family))
	return appendEscaped(dst, qualifier)
}

// FamilyPrefix returns the encoding of (row, family) that every key of that
// family in the row has as a prefix.
func FamilyPrefix(row []byte, family string) []byte {
	return appendEscaped(appendEscaped(nil, row), []byte(family))
}

// RowEnd returns the smallest encoded key greater than every key of row.
// It is the row prefix with its terminator raised by one.
func RowEnd(row []byte) []byte {
	p := RowPrefix(row)
	p[len(p)-1]++
	return p
}

// PrefixEnd returns the smallest byte string greater than every string
// with the given prefix, or nil if there is none.
func PrefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// Decode parses an encoded key. The returned slices are fresh copies when a
// part holds an escaped zero byte and alias enc otherwise.
func Decode(enc []byte) (Key, error) {
	var k Key
	row, rest, ok := splitEscaped(enc)
	if !ok {
		return k, ErrBadKey
	}
	fam, rest, ok := splitEscaped(rest)
	if !ok {
		return k, ErrBadKey
	}
	qual, rest, ok := splitEscaped(rest)
	if !ok || len(rest) != TrailerLen {
		return k, ErrBadKey
	}
	k.Row, k.Family, k.Qualifier = row, string(fam), qual
	k.Timestamp, k.Seq, k.Kind = decodeTrailer(rest)
	if !k.Kind.Valid() {
		return k, ErrBadKey
	}
	return k, nil
}

func decodeTrailer(t []byte) (int64, uint64, Kind) {
	ts := int64(^binary.BigEndian.Uint64(t) ^ 1<<63)
	tr := ^binary.BigEndian.Uint64(t[8:])
	return ts, tr >> 8, Kind(tr & 0xFF)
}

// SplitRow returns the length of the encoded row part at the start of enc
// (the row prefix, terminator included), or -1 if enc does not hold one.
func SplitRow(enc []byte) int {
	_, rest, ok := splitEscaped(enc)
	if !ok {
		return -1
	}
	return len(enc) - len(rest)
}

// SplitColumn returns the length of the encoded (row, family, qualifier)
// part at the start of enc, or -1 if enc does not hold one.
func SplitColumn(enc []byte) int {
	rest := enc
	for range 3 {
		var ok bool
		if _, rest, ok = splitEscaped(rest); !ok {
			return -1
		}
	}
	return len(enc) - len(rest)
}

// KeyInfo returns the seq and kind of an encoded key without decoding the
// rest. enc must be a valid encoded key.
func KeyInfo(enc []byte) (ts int64, seq uint64, kind Kind) {
	return decodeTrailer(enc[len(enc)-TrailerLen:])
}

// splitEscaped reads one escaped part from the start of b.
func splitEscaped(b []byte) (part, rest []byte, ok bool) {
	var out []byte
	copied := false
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], escByte)
		if j < 0 || i+j+1 >= len(b) {
			return nil, nil, false
		}
		j += i
		switch b[j+1] {
		case escEnd:
			if copied {
				return append(out, b[i:j]...), b[j+2:], true
			}
			return b[:j:j], b[j+2:], true
		case escEscape:
			if !copied {
				out = make([]byte, 0, len(b))
				copied = true
			}
			out = append(out, b[i:j+1]...)
			i = j + 2
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// SeekKey returns the smallest encoded key of a column at timestamps ≤ ts,
// i.e. the position where a reader of (row, family, qualifier) at ts starts.
func SeekKey(row []byte, family string, qualifier []byte, ts int64) []byte {
	return appendTrailer(ColumnPrefix(row, family, qualifier), ts, MaxSeq, Kind(0xFF))
}
