package sstable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/compress"
	"github.com/tabuladb/tabula/internal/vfs"
)

// trailerLen is the codec byte plus the CRC32C that follow every block.
const trailerLen = 5

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// handle locates a block: its file offset and payload length (the trailer
// follows the payload and is not counted).
type handle struct {
	offset, size uint64
}

// end is the offset just past the block's trailer.
func (h handle) end() uint64 { return h.offset + h.size + trailerLen }

// appendTrailer appends the codec byte and the CRC32C of payload+codec.
func appendTrailer(buf []byte, codec compress.ID) []byte {
	buf = append(buf, byte(codec))
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, crcTable))
}

// blockReader reads and verifies blocks of one file.
type blockReader struct {
	f    vfs.File
	name string
}

func (br blockReader) corrupt(off uint64, format string, args ...any) error {
	return base.Corruptf(br.name, int64(off), "sstable: "+format, args...)
}

// read returns the decoded payload of the block at h. raw and dst are
// buffers the caller may reuse; the result may alias either. CRC and codec
// are checked before any decoding.
func (br blockReader) read(h handle, raw, dst []byte) (block, rawBuf, dstBuf []byte, err error) {
	n := int(h.size) + trailerLen
	if cap(raw) < n {
		raw = make([]byte, n)
	}
	raw = raw[:n]
	if _, err := br.f.ReadAt(raw, int64(h.offset)); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, raw, dst, br.corrupt(h.offset, "block of %d bytes runs past the end of the file", n)
		}
		return nil, raw, dst, fmt.Errorf("sstable: read block at %d in %s: %w", h.offset, br.name, err)
	}
	block, dst, err = br.decode(h.offset, raw, dst)
	return block, raw, dst, err
}

// decode verifies a stored block (payload+trailer) and decompresses it.
func (br blockReader) decode(off uint64, raw, dst []byte) (block, dstBuf []byte, err error) {
	if len(raw) < trailerLen {
		return nil, dst, br.corrupt(off, "block of %d bytes has no trailer", len(raw))
	}
	size := len(raw) - trailerLen
	want := binary.LittleEndian.Uint32(raw[size+1:])
	if got := crc32.Checksum(raw[:size+1], crcTable); got != want {
		return nil, dst, br.corrupt(off, "block checksum mismatch: stored %#08x, computed %#08x", want, got)
	}
	id := compress.ID(raw[size])
	if id == compress.None {
		return raw[:size:size], dst, nil
	}
	codec, err := compress.Lookup(id)
	if err != nil {
		return nil, dst, br.corrupt(off, "block has unknown codec %d", uint8(id))
	}
	dst, err = codec.Decompress(dst, raw[:size])
	if err != nil {
		return nil, dst, br.corrupt(off, "decompress %s block: %v", id, err)
	}
	return dst, dst, nil
}

// readFresh reads the block at h into memory that the caller owns.
func (br blockReader) readFresh(h handle) ([]byte, error) {
	raw := make([]byte, int(h.size)+trailerLen)
	block, _, _, err := br.read(h, raw, nil)
	return block, err
}
