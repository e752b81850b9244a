package memtable

import "sync/atomic"

// A node is laid out in the arena as 4-byte words:
//
//	word 0      key length (low 24 bits) | tower height (high 8 bits)
//	word 1      value length
//	word 2      prev link at level 0
//	words 3...  one next link per tower level
//
// followed by the key bytes, the value bytes and padding to a multiple of 4.
// Words 0 and 1 and the bytes never change once the node is published; the
// links are read and written atomically.
const (
	headerSize = 12
	maxHeight  = 12 // p = 1/4 keeps searches logarithmic to 4^12 entries
	maxKeyLen  = 1<<24 - 1
)

// nodeSize is the arena bytes of a node.
func nodeSize(height, keyLen, valueLen int) int {
	return headerSize + 4*height + (keyLen+valueLen+3)&^3
}

// EntryOverhead is an upper bound on the arena bytes one Add of a key and
// value of these lengths uses. Add never reports ErrFull while the sum of
// EntryOverhead over all adds stays within Options.ArenaSize.
func EntryOverhead(keyLen, valueLen int) int64 {
	return int64(nodeSize(maxHeight, keyLen, valueLen))
}

// initNode writes the header and bytes of a node at h.
func (m *Memtable) initNode(h uint32, height int, key, value []byte) {
	c, off := m.arena.locate(h)
	*word(c, off) = uint32(len(key)) | uint32(height)<<24
	*word(c, off+4) = uint32(len(value))
	start := off + headerSize + 4*height
	copy(c[start:], key)
	copy(c[start+len(key):], value)
}

// nodeEntry returns the key and value of the node at off in chunk c; each
// has its capacity capped.
func nodeEntry(c []byte, off int) (key, value []byte) {
	w0 := *word(c, off)
	k, v := int(w0&maxKeyLen), int(*word(c, off+4))
	start := off + headerSize + 4*int(w0>>24)
	return c[start : start+k : start+k], c[start+k : start+k+v : start+k+v]
}

// key returns the key of node h.
func (m *Memtable) key(h uint32) []byte {
	c, off := m.arena.locate(h)
	w0 := *word(c, off)
	start := off + headerSize + 4*int(w0>>24)
	return c[start : start+int(w0&maxKeyLen)]
}

func (m *Memtable) next(h uint32, level int) uint32 {
	c, off := m.arena.locate(h)
	return nodeNext(c, off, level)
}

// nodeNext returns the next link at level of the node at off in chunk c.
func nodeNext(c []byte, off int, level int) uint32 {
	return atomic.LoadUint32(word(c, off+headerSize+4*level))
}

func (m *Memtable) setNext(h uint32, level int, to uint32) {
	c, off := m.arena.locate(h)
	atomic.StoreUint32(word(c, off+headerSize+4*level), to)
}

func (m *Memtable) prev(h uint32) uint32 {
	c, off := m.arena.locate(h)
	return nodePrev(c, off)
}

// nodePrev returns the prev link of the node at off in chunk c.
func nodePrev(c []byte, off int) uint32 {
	return atomic.LoadUint32(word(c, off+8))
}

func (m *Memtable) setPrev(h uint32, to uint32) {
	c, off := m.arena.locate(h)
	atomic.StoreUint32(word(c, off+8), to)
}
