package cache

// entry is a cached key and value, linked into its shard's LRU list and,
// for grouped caches, into the list of its group.
type entry[K comparable, V any] struct {
	key    K
	value  V
	charge int64
	group  uint64

	prev, next   *entry[K, V] // LRU list, most recent after the root
	gprev, gnext *entry[K, V] // group list, nil-terminated
}

// unlink removes e from the LRU list.
func (e *entry[K, V]) unlink() {
	e.prev.next = e.next
	e.next.prev = e.prev
	e.prev, e.next = nil, nil
}

// insertAfter links e into the LRU list after at.
func (e *entry[K, V]) insertAfter(at *entry[K, V]) {
	e.prev, e.next = at, at.next
	at.next.prev = e
	at.next = e
}
