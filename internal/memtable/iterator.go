package memtable

// iterator walks a memtable. Once exhausted forward it stands on the tail
// sentinel, from which Prev reaches the last entry; once exhausted backward
// it stands on the head, from which Next reaches the first.
type iterator struct {
	m          *Memtable
	chunks     [][]byte // the arena's chunk table, reloaded when it grows
	nd         uint32
	key, value []byte
}

// locate is arena.locate through the iterator's copy of the chunk table.
// Tables only grow, so a copy resolves every chunk it has.
func (it *iterator) locate(h uint32) ([]byte, int) {
	i := int(h >> offsetBits)
	if i >= len(it.chunks) {
		it.chunks = *it.m.arena.chunks.Load()
	}
	return it.chunks[i], int(h&offsetMask) << 2
}

// set moves to node nd and reports whether it is an entry.
func (it *iterator) set(nd uint32) bool {
	it.nd = nd
	if nd == it.m.head || nd == it.m.tail {
		it.key, it.value = nil, nil
		return false
	}
	it.key, it.value = nodeEntry(it.locate(nd))
	return true
}

// SeekGE moves to the first entry whose key is ≥ key.
func (it *iterator) SeekGE(key []byte) bool {
	_, next := it.m.findLT(key)
	return it.set(next)
}

// SeekLT moves to the last entry whose key is < key.
func (it *iterator) SeekLT(key []byte) bool {
	pred, _ := it.m.findLT(key)
	return it.set(pred)
}

// First moves to the first entry.
func (it *iterator) First() bool { return it.set(it.m.next(it.m.head, 0)) }

// Last moves to the last entry.
func (it *iterator) Last() bool { return it.set(it.m.prev(it.m.tail)) }

// Next moves one entry forward.
func (it *iterator) Next() bool {
	if it.nd == it.m.tail {
		return false
	}
	c, off := it.locate(it.nd)
	return it.set(nodeNext(c, off, 0))
}

// Prev moves one entry back.
func (it *iterator) Prev() bool {
	if it.nd == it.m.head {
		return false
	}
	return it.set(nodePrev(it.locate(it.nd)))
}

// Key returns the current key, or nil when not on an entry.
func (it *iterator) Key() []byte { return it.key }

// Value returns the current value, or nil when not on an entry.
func (it *iterator) Value() []byte { return it.value }

// Error returns nil: a memtable iterator cannot fail.
func (it *iterator) Error() error { return nil }

// Close releases the iterator.
func (it *iterator) Close() error {
	it.key, it.value = nil, nil
	return nil
}
