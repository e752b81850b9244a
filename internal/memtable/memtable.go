package memtable

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/tabuladb/tabula/internal/base"
)

var (
	// ErrFull reports that an entry would take the arena past ArenaSize.
	ErrFull = errors.New("memtable: full")
	// ErrDuplicate reports that the key is already present.
	ErrDuplicate = errors.New("memtable: duplicate key")
	// ErrKeyTooLarge reports a key of 16 MiB or more.
	ErrKeyTooLarge = errors.New("memtable: key too large")
)

// Memtable is a sorted map of unique keys to values. Add may be called from
// many goroutines at once; iterators run concurrently with Add and see each
// entry either whole or not at all.
type Memtable struct {
	mu    sync.Mutex // serializes Add's allocate-and-link step
	arena arena
	rng   uint64 // tower height generator state, guarded by mu
	limit int64

	used   atomic.Int64  // arena bytes of entries
	count  atomic.Int64  // number of entries
	height atomic.Uint32 // levels in use, at least 1

	head, tail uint32 // sentinel nodes
	hint       splice // splice just after the last insert, guarded by mu
}

// New returns an empty memtable. An out-of-range ArenaSize is clamped.
func New(opts Options) *Memtable {
	m := &Memtable{rng: opts.Seed, limit: opts.arenaSize()}
	m.arena.init()
	m.head, _ = m.arena.alloc(nodeSize(maxHeight, 0, 0))
	m.tail, _ = m.arena.alloc(nodeSize(0, 0, 0))
	m.initNode(m.head, maxHeight, nil, nil)
	m.initNode(m.tail, 0, nil, nil)
	for l := range maxHeight {
		m.setNext(m.head, l, m.tail)
	}
	m.setPrev(m.tail, m.head)
	m.height.Store(1)
	for l := range maxHeight {
		m.hint.prev[l], m.hint.next[l] = m.head, m.tail
	}
	return m
}

// Add inserts a copy of key and value. It returns ErrDuplicate if key is
// present and ErrFull if the entry would take the arena past ArenaSize.
func (m *Memtable) Add(key, value []byte) error {
	if len(key) > maxKeyLen {
		return ErrKeyTooLarge
	}
	// Ascending keys go where the last insert left off. Other keys are
	// searched for without the lock; under it, the search is redone only if
	// another insert changed the neighbourhood.
	var s splice
	m.mu.Lock()
	if m.hintFits(key) {
		s = m.hint
	} else {
		m.mu.Unlock()
		if m.findSplice(key, &s) {
			return ErrDuplicate
		}
		m.mu.Lock()
	}
	defer m.mu.Unlock()
	height := m.randomHeight()
	if !m.spliceValid(&s, height) && m.findSplice(key, &s) {
		return ErrDuplicate
	}
	size := int64(nodeSize(height, len(key), len(value)))
	if m.used.Load()+size > m.limit {
		return ErrFull
	}
	nd, ok := m.arena.alloc(int(size))
	if !ok {
		return ErrFull
	}
	m.initNode(nd, height, key, value)
	m.link(nd, height, &s)
	m.setHint(nd, height, &s)
	m.used.Add(size)
	m.count.Add(1)
	return nil
}

// NewIter returns an iterator over the memtable, unpositioned.
func (m *Memtable) NewIter() base.Iterator {
	return &iterator{m: m, nd: m.head}
}

// Size returns the arena bytes used by entries.
func (m *Memtable) Size() int64 { return m.used.Load() }

// Len returns the number of entries.
func (m *Memtable) Len() int { return int(m.count.Load()) }

// Empty reports whether the memtable holds no entries.
func (m *Memtable) Empty() bool { return m.Len() == 0 }

// randomHeight draws a tower height with P(height > h) = 4^-h.
func (m *Memtable) randomHeight() int {
	m.rng += 0x9e3779b97f4a7c15 // splitmix64
	z := m.rng
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	h := 1
	for h < maxHeight && z&3 == 0 {
		h++
		z >>= 2
	}
	return h
}
