package sstable

import (
	"encoding/binary"
	"hash/crc32"
)

const (
	// footerLen is the fixed size of the footer at the end of every table.
	footerLen = 64
	// formatVersion is the table format this package writes and reads.
	formatVersion = 1
	// magic ends every table: "TABULAST" as a little-endian uint64.
	magic uint64 = 0x5453414c55424154
)

// footer locates the filter, index and properties blocks. It is six
// little-endian uint64s (offset and payload size of each block; a filter
// size of 0 means no filter), the format version (uint32), the CRC32C of the
// 52 bytes before it (uint32) and the magic number (uint64).
type footer struct {
	filter, index, props handle
}

func (f footer) encode(dst []byte) []byte {
	start := len(dst)
	for _, h := range []handle{f.filter, f.index, f.props} {
		dst = binary.LittleEndian.AppendUint64(dst, h.offset)
		dst = binary.LittleEndian.AppendUint64(dst, h.size)
	}
	dst = binary.LittleEndian.AppendUint32(dst, formatVersion)
	dst = binary.LittleEndian.AppendUint32(dst, crc32c(dst[start:]))
	return binary.LittleEndian.AppendUint64(dst, magic)
}

// decodeFooter parses the last footerLen bytes of a table of fileSize
// bytes; it checks that every handle lies before the footer.
func decodeFooter(b []byte, fileSize uint64) (footer, string) {
	if len(b) != footerLen {
		return footer{}, "footer is truncated"
	}
	if binary.LittleEndian.Uint64(b[56:]) != magic {
		return footer{}, "bad magic number (not a Tabula SSTable)"
	}
	if v := binary.LittleEndian.Uint32(b[48:]); v != formatVersion {
		return footer{}, "unsupported format version"
	}
	if binary.LittleEndian.Uint32(b[52:]) != crc32c(b[:52]) {
		return footer{}, "footer checksum mismatch"
	}
	var hs [3]handle
	for i := range hs {
		hs[i] = handle{binary.LittleEndian.Uint64(b[16*i:]), binary.LittleEndian.Uint64(b[16*i+8:])}
		if hs[i].size > maxBlockSize || hs[i].offset > fileSize || hs[i].end() > fileSize-footerLen {
			if i == 0 && hs[i] == (handle{}) {
				continue
			}
			return footer{}, "block handle points outside the file"
		}
	}
	return footer{filter: hs[0], index: hs[1], props: hs[2]}, ""
}

func crc32c(b []byte) uint32 { return crc32.Checksum(b, crcTable) }

// encode appends the handle as two uvarints, the form index entries use.
func (h handle) encode(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, h.offset)
	return binary.AppendUvarint(dst, h.size)
}

// decodeHandle parses an index entry's value.
func decodeHandle(b []byte) (handle, bool) {
	off, n := binary.Uvarint(b)
	if n <= 0 {
		return handle{}, false
	}
	size, m := binary.Uvarint(b[n:])
	if m <= 0 || n+m != len(b) || size > maxBlockSize {
		return handle{}, false
	}
	return handle{offset: off, size: size}, true
}
