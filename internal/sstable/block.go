package sstable

import "encoding/binary"

// blockBuilder accumulates sorted entries into one block: each entry is
// uvarint(shared) uvarint(unshared) uvarint(valueLen) keySuffix value; a key
// at a restart point shares nothing with its predecessor. The block ends with
// the restart offsets (uint32 LE each) and their count (uint32 LE).
type blockBuilder struct {
	restartInterval int
	buf             []byte
	restarts        []uint32
	lastKey         []byte
	count           int // entries since the last restart point
	entries         int
}

func (b *blockBuilder) add(key, value []byte) {
	shared := 0
	if b.count == b.restartInterval || b.entries == 0 {
		b.restarts = append(b.restarts, uint32(len(b.buf)))
		b.count = 0
	} else {
		shared = sharedPrefixLen(b.lastKey, key)
	}
	b.buf = binary.AppendUvarint(b.buf, uint64(shared))
	b.buf = binary.AppendUvarint(b.buf, uint64(len(key)-shared))
	b.buf = binary.AppendUvarint(b.buf, uint64(len(value)))
	b.buf = append(b.buf, key[shared:]...)
	b.buf = append(b.buf, value...)
	b.lastKey = append(b.lastKey[:0], key...)
	b.count++
	b.entries++
}

// estimatedSize is the size finish would return now.
func (b *blockBuilder) estimatedSize() int {
	return len(b.buf) + 4*len(b.restarts) + 4
}

func (b *blockBuilder) empty() bool { return b.entries == 0 }

// finish appends the restart array and returns the block. The result is
// valid until reset.
func (b *blockBuilder) finish() []byte {
	for _, r := range b.restarts {
		b.buf = binary.LittleEndian.AppendUint32(b.buf, r)
	}
	b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(len(b.restarts)))
	return b.buf
}

func (b *blockBuilder) reset() {
	b.buf = b.buf[:0]
	b.restarts = b.restarts[:0]
	b.lastKey = b.lastKey[:0]
	b.count = 0
	b.entries = 0
}

func sharedPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
