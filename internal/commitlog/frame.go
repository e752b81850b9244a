package commitlog

import (
	"encoding/binary"
	"hash/crc32"
)

const (
	// FormatVersion is the segment format version written in every header.
	// Version 2 segments may end in zeros laid out ahead of the frames;
	// version 1 segments, which never do, are read as well.
	FormatVersion = 2
	// MaxRecordSize is the largest record payload the log accepts.
	MaxRecordSize = 64 << 20

	magic          = "TBCOMLOG"
	headerLen      = 24 // magic, version, segment number, header CRC
	frameHeaderLen = 8  // payload length, CRC
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendHeader appends the header of segment seg to dst.
func appendHeader(dst []byte, seg uint64) []byte {
	start := len(dst)
	dst = append(dst, magic...)
	dst = binary.LittleEndian.AppendUint32(dst, FormatVersion)
	dst = binary.LittleEndian.AppendUint64(dst, seg)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// checkHeader returns why h is not the header of segment seg, or "".
func checkHeader(h []byte, seg uint64) string {
	switch {
	case len(h) < headerLen:
		return "short segment header"
	case string(h[:8]) != magic:
		return "bad segment magic"
	case binary.LittleEndian.Uint32(h[20:24]) != crc32.Checksum(h[:20], castagnoli):
		return "segment header checksum mismatch"
	case binary.LittleEndian.Uint32(h[8:12]) < 1 || binary.LittleEndian.Uint32(h[8:12]) > FormatVersion:
		return "unknown segment format version"
	case binary.LittleEndian.Uint64(h[12:20]) != seg:
		return "segment number does not match file name"
	}
	return ""
}

// appendFrame appends the frame of rec to dst.
func appendFrame(dst, rec []byte) []byte {
	var hdr [frameHeaderLen]byte
	binary.LittleEndian.PutUint32(hdr[:4], uint32(len(rec)))
	binary.LittleEndian.PutUint32(hdr[4:], frameCRC(hdr[:4], rec))
	return append(append(dst, hdr[:]...), rec...)
}

// frameCRC is the CRC-32C of a frame's length field and payload.
func frameCRC(length, rec []byte) uint32 {
	return crc32.Update(crc32.Checksum(length, castagnoli), castagnoli, rec)
}
