// Package record encodes the commit-log record of one row mutation: the
// tablet it belongs to, the sequence number of its first entry, the row and
// its mutations. The layout is drawn in docs/format/commitlog.md.
package record

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tabuladb/tabula/internal/base"
)

// Version is the record layout version, the first byte of every record.
const Version = 1

// ErrMalformed marks a record that does not decode.
var ErrMalformed = fmt.Errorf("record: malformed: %w", base.ErrCorruption)

// RowMutation is a row mutation as logged. Its entries take the sequence
// numbers Seq, Seq+1, … in order.
type RowMutation struct {
	Tablet    uint64
	Seq       uint64
	Row       []byte
	Mutations []base.Mutation
}

// Append appends the encoding of m to dst.
func Append(dst []byte, m *RowMutation) []byte {
	dst = append(dst, Version)
	dst = binary.AppendUvarint(dst, m.Tablet)
	dst = binary.AppendUvarint(dst, m.Seq)
	dst = appendBytes(dst, m.Row)
	dst = binary.AppendUvarint(dst, uint64(len(m.Mutations)))
	for i := range m.Mutations {
		mu := &m.Mutations[i]
		dst = append(dst, byte(mu.Kind))
		dst = appendBytes(dst, []byte(mu.Family))
		dst = appendBytes(dst, mu.Qualifier)
		dst = binary.AppendVarint(dst, mu.Timestamp)
		dst = appendBytes(dst, mu.Value)
		if mu.Kind == base.KindDeleteCells {
			dst = binary.AppendVarint(dst, mu.Range.Start)
			dst = binary.AppendVarint(dst, mu.Range.End)
		}
	}
	return dst
}

func appendBytes(dst, b []byte) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(b))), b...)
}

// Decode parses a record. The returned slices alias b.
func Decode(b []byte) (RowMutation, error) {
	d := decoder{b: b}
	var m RowMutation
	if v := d.byte(); v != Version && d.err == nil {
		return m, fmt.Errorf("record: version %d: %w", v, ErrMalformed)
	}
	m.Tablet, m.Seq, m.Row = d.uvarint(), d.uvarint(), d.bytes()
	n := d.uvarint()
	if n > uint64(len(b)) {
		return m, ErrMalformed
	}
	m.Mutations = make([]base.Mutation, n)
	for i := range m.Mutations {
		d.mutation(&m.Mutations[i])
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = ErrMalformed
	}
	return m, d.err
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) mutation(mu *base.Mutation) {
	mu.Kind = base.Kind(d.byte())
	mu.Family = string(d.bytes())
	mu.Qualifier = d.bytes()
	mu.Timestamp = d.varint()
	mu.Value = d.bytes()
	if mu.Kind == base.KindDeleteCells {
		mu.Range.Start, mu.Range.End = d.varint(), d.varint()
	}
	if d.err == nil && !mu.Kind.Valid() {
		d.err = ErrMalformed
	}
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = ErrMalformed
	}
}

// IsMalformed reports whether err says a record did not decode.
func IsMalformed(err error) bool { return errors.Is(err, ErrMalformed) }
