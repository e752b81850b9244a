package gcrule

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/tabuladb/tabula/internal/base"
)

// formatV1 is the first byte of MarshalBinary's output. After it comes the
// rule, each node as its kind byte and then:
//
//	KindNone                      nothing
//	KindMaxVersions               uvarint n
//	KindMaxAge                    uvarint age in milliseconds
//	KindUnion, KindIntersection   uvarint child count, then the children
const formatV1 = 1

// MarshalBinary encodes a valid rule compactly; the first byte is the
// format version. An invalid rule is an error.
func (r Rule) MarshalBinary() ([]byte, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r.appendNode([]byte{formatV1}), nil
}

func (r Rule) appendNode(b []byte) []byte {
	b = append(b, byte(r.kind))
	switch r.kind {
	case KindMaxVersions:
		b = binary.AppendUvarint(b, uint64(r.n))
	case KindMaxAge:
		b = binary.AppendUvarint(b, uint64(r.age/time.Millisecond))
	case KindUnion, KindIntersection:
		b = binary.AppendUvarint(b, uint64(len(r.children)))
		for _, c := range r.children {
			b = c.appendNode(b)
		}
	}
	return b
}

// UnmarshalBinary decodes what MarshalBinary wrote. It never panics; errors
// wrap base.ErrCorruption.
func (r *Rule) UnmarshalBinary(b []byte) error {
	if len(b) == 0 {
		return corruptf("empty encoding")
	}
	if b[0] != formatV1 {
		return corruptf("unknown format version %d", b[0])
	}
	d := decoder{b: b, pos: 1}
	rule, err := d.node(1)
	if err != nil {
		return err
	}
	if d.pos != len(b) {
		return corruptf("%d trailing bytes", len(b)-d.pos)
	}
	if err := rule.Validate(); err != nil {
		return corruptf("%v", err)
	}
	*r = rule
	return nil
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("gcrule: %s: %w", fmt.Sprintf(format, args...), base.ErrCorruption)
}

type decoder struct {
	b   []byte
	pos int
}

func (d *decoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.b[d.pos:])
	if n <= 0 {
		return 0, corruptf("bad varint at offset %d", d.pos)
	}
	d.pos += n
	return v, nil
}

func (d *decoder) node(depth int) (Rule, error) {
	if d.pos >= len(d.b) {
		return Rule{}, corruptf("truncated at offset %d", d.pos)
	}
	kind := Kind(d.b[d.pos])
	d.pos++
	switch kind {
	case KindNone:
		return Rule{}, nil
	case KindMaxVersions:
		n, err := d.uvarint()
		if err != nil || n > math.MaxInt {
			return Rule{}, corruptf("bad maxversions at offset %d", d.pos)
		}
		return MaxVersions(int(n)), nil
	case KindMaxAge:
		ms, err := d.uvarint()
		if err != nil || ms > math.MaxInt64/uint64(time.Millisecond) {
			return Rule{}, corruptf("bad maxage at offset %d", d.pos)
		}
		return MaxAge(time.Duration(ms) * time.Millisecond), nil
	case KindUnion, KindIntersection:
		return d.children(kind, depth)
	}
	return Rule{}, corruptf("unknown rule kind %d at offset %d", kind, d.pos-1)
}

func (d *decoder) children(kind Kind, depth int) (Rule, error) {
	if depth > MaxDepth {
		return Rule{}, corruptf("rules nest deeper than %d", MaxDepth)
	}
	n, err := d.uvarint()
	if err != nil {
		return Rule{}, err
	}
	if n == 0 || n > uint64(len(d.b)-d.pos) {
		return Rule{}, corruptf("bad child count %d at offset %d", n, d.pos)
	}
	rules := make([]Rule, n)
	for i := range rules {
		if rules[i], err = d.node(depth + 1); err != nil {
			return Rule{}, err
		}
	}
	return Rule{kind: kind, children: rules}, nil
}
