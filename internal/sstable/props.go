package sstable

import (
	"encoding/binary"

	"github.com/tabuladb/tabula/internal/compress"
)

// Properties describe a table; they are stored in its properties block.
type Properties struct {
	// NumEntries is the number of key/value pairs.
	NumEntries uint64
	// RawKeyBytes and RawValueBytes sum the key and value lengths before
	// prefix compression and block compression.
	RawKeyBytes, RawValueBytes uint64
	// DataBlocks is the number of data blocks.
	DataBlocks uint64
	// DataSize is the stored size of all data blocks, trailers included.
	DataSize uint64
	// IndexSize and FilterSize are the stored sizes of the index and filter
	// blocks, trailers included; FilterSize is 0 when there is no filter.
	IndexSize, FilterSize uint64
	// Compression is the codec the writer was asked to use for data blocks.
	Compression compress.ID
	// BloomBitsPerKey is the filter density the writer used; 0 = no filter.
	BloomBitsPerKey uint64
	// FilterPrefixes is the number of distinct prefix hashes in the filter.
	FilterPrefixes uint64
	// SmallestKey and LargestKey bound the keys; nil for an empty table.
	SmallestKey, LargestKey []byte
}

// Property tags. A field is uvarint(tag<<1 | kind) then, for kind 0, a
// uvarint; for kind 1, uvarint(len) and len bytes. Readers skip unknown tags.
const (
	propNumEntries      = 1
	propRawKeyBytes     = 2
	propRawValueBytes   = 3
	propDataBlocks      = 4
	propCompression     = 5
	propSmallestKey     = 6
	propLargestKey      = 7
	propDataSize        = 8
	propIndexSize       = 9
	propFilterSize      = 10
	propBloomBitsPerKey = 11
	propFilterPrefixes  = 12
)

func (p *Properties) encode() []byte {
	var b []byte
	num := func(tag, v uint64) {
		b = binary.AppendUvarint(b, tag<<1)
		b = binary.AppendUvarint(b, v)
	}
	str := func(tag uint64, v []byte) {
		b = binary.AppendUvarint(b, tag<<1|1)
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	num(propNumEntries, p.NumEntries)
	num(propRawKeyBytes, p.RawKeyBytes)
	num(propRawValueBytes, p.RawValueBytes)
	num(propDataBlocks, p.DataBlocks)
	num(propCompression, uint64(p.Compression))
	num(propDataSize, p.DataSize)
	num(propIndexSize, p.IndexSize)
	num(propFilterSize, p.FilterSize)
	num(propBloomBitsPerKey, p.BloomBitsPerKey)
	num(propFilterPrefixes, p.FilterPrefixes)
	if p.NumEntries > 0 {
		str(propSmallestKey, p.SmallestKey)
		str(propLargestKey, p.LargestKey)
	}
	return b
}

// decodeProperties parses a properties block; ok is false if it is
// malformed. Byte fields are copied.
func decodeProperties(b []byte) (p Properties, ok bool) {
	for len(b) > 0 {
		field, n := binary.Uvarint(b)
		if n <= 0 {
			return p, false
		}
		b = b[n:]
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return p, false
		}
		b = b[n:]
		if field&1 == 1 {
			if v > uint64(len(b)) {
				return p, false
			}
			p.setBytes(field>>1, b[:v])
			b = b[v:]
			continue
		}
		if !p.setNum(field>>1, v) {
			return p, false
		}
	}
	return p, true
}

func (p *Properties) setNum(tag, v uint64) bool {
	switch tag {
	case propNumEntries:
		p.NumEntries = v
	case propRawKeyBytes:
		p.RawKeyBytes = v
	case propRawValueBytes:
		p.RawValueBytes = v
	case propDataBlocks:
		p.DataBlocks = v
	case propCompression:
		if v > 255 {
			return false
		}
		p.Compression = compress.ID(v)
	case propDataSize:
		p.DataSize = v
	case propIndexSize:
		p.IndexSize = v
	case propFilterSize:
		p.FilterSize = v
	case propBloomBitsPerKey:
		p.BloomBitsPerKey = v
	case propFilterPrefixes:
		p.FilterPrefixes = v
	}
	return true
}

func (p *Properties) setBytes(tag uint64, v []byte) {
	switch tag {
	case propSmallestKey:
		p.SmallestKey = append([]byte{}, v...)
	case propLargestKey:
		p.LargestKey = append([]byte{}, v...)
	}
}
