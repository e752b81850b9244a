package memtable

import (
	"sync/atomic"
	"unsafe"
)

// A handle names 4-byte aligned arena space: the chunk index in the high
// bits, the offset in 4-byte words in the low offsetBits bits.
const (
	offsetBits   = 20
	offsetMask   = 1<<offsetBits - 1
	maxChunkSize = 4 << offsetBits // 4 MiB, the largest chunk a word offset reaches
	minChunkSize = 64 << 10
	maxChunks    = 1 << (32 - offsetBits)
)

// arena hands out space in chunks of 64 KiB doubling to 4 MiB; a node larger
// than 4 MiB gets a chunk of its own. Only the writer holding Memtable.mu
// allocates. Readers resolve handles through the chunk table, which is
// replaced, never modified, when it grows.
type arena struct {
	chunks atomic.Pointer[[][]byte]
	cur    int // index of the chunk being filled
	off    int // first free byte of chunk cur
	next   int // size of the next growth chunk
}

func (a *arena) init() {
	a.next = minChunkSize
	a.cur, _ = a.addChunk(minChunkSize)
	a.next *= 2
}

// alloc returns the handle of n zeroed bytes, n a multiple of 4, or false
// when the chunk table is full.
func (a *arena) alloc(n int) (uint32, bool) {
	if n > maxChunkSize {
		i, ok := a.addChunk(n)
		return uint32(i) << offsetBits, ok
	}
	if a.off+n > len((*a.chunks.Load())[a.cur]) {
		for a.next < n {
			a.next *= 2
		}
		i, ok := a.addChunk(a.next)
		if !ok {
			return 0, false
		}
		a.cur, a.off = i, 0
		a.next = min(2*a.next, maxChunkSize)
	}
	h := uint32(a.cur)<<offsetBits | uint32(a.off>>2)
	a.off += n
	return h, true
}

// addChunk appends a chunk of size bytes to the table and returns its index.
func (a *arena) addChunk(size int) (int, bool) {
	var chunks [][]byte
	if old := a.chunks.Load(); old != nil {
		chunks = *old
	}
	if len(chunks) == maxChunks {
		return 0, false
	}
	// Backing the bytes with uint64s aligns every word for atomic access.
	words := make([]uint64, (size+7)/8)
	chunk := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), size)
	prefault(chunk)
	grown := append(chunks[:len(chunks):len(chunks)], chunk)
	a.chunks.Store(&grown)
	return len(grown) - 1, true
}

// locate returns the chunk holding h and the byte offset of h in it.
func (a *arena) locate(h uint32) ([]byte, int) {
	return (*a.chunks.Load())[h>>offsetBits], int(h&offsetMask) << 2
}

// word returns the 4-byte word at off in chunk c.
func word(c []byte, off int) *uint32 {
	return (*uint32)(unsafe.Pointer(&c[off]))
}
