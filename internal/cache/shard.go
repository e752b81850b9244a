package cache

import "sync"

// shard is one independently locked LRU of a Cache.
type shard[K comparable, V any] struct {
	mu       sync.Mutex
	entries  map[K]*entry[K, V]
	groups   map[uint64]*entry[K, V] // group → first entry; nil if ungrouped
	root     entry[K, V]             // LRU sentinel: root.next is most recent
	size     int64
	capacity int64

	hits, misses, evictions uint64

	_ [64]byte // keep neighbouring shards off this cache line
}

func (s *shard[K, V]) init(capacity int64, grouped bool) {
	s.entries = make(map[K]*entry[K, V])
	if grouped {
		s.groups = make(map[uint64]*entry[K, V])
	}
	s.root.prev, s.root.next = &s.root, &s.root
	s.capacity = capacity
}

func (s *shard[K, V]) get(k K) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[k]
	if !ok {
		s.misses++
		var zero V
		return zero, false
	}
	s.hits++
	if s.root.next != e {
		e.unlink()
		e.insertAfter(&s.root)
	}
	return e.value, true
}

// set stores k, replacing any entry, and evicts from the cold end until
// the shard is within capacity. An entry larger than capacity is dropped.
func (s *shard[K, V]) set(k K, v V, charge int64, group uint64) {
	charge = max(charge, 0)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.entries[k]; ok {
		s.remove(old)
	}
	if charge > s.capacity {
		return
	}
	e := &entry[K, V]{key: k, value: v, charge: charge, group: group}
	s.entries[k] = e
	e.insertAfter(&s.root)
	s.size += charge
	if s.groups != nil {
		e.gnext = s.groups[group]
		if e.gnext != nil {
			e.gnext.gprev = e
		}
		s.groups[group] = e
	}
	for s.size > s.capacity {
		s.remove(s.root.prev)
		s.evictions++
	}
}

func (s *shard[K, V]) delete(k K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[k]; ok {
		s.remove(e)
	}
}

func (s *shard[K, V]) deleteIf(pred func(K) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, e := range s.entries {
		if pred(k) {
			s.remove(e)
		}
	}
}

// deleteGroup removes every entry of group g.
func (s *shard[K, V]) deleteGroup(g uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for e := s.groups[g]; e != nil; {
		next := e.gnext
		s.remove(e)
		e = next
	}
}

// remove drops e from the map, the LRU list and its group list.
func (s *shard[K, V]) remove(e *entry[K, V]) {
	delete(s.entries, e.key)
	e.unlink()
	s.size -= e.charge
	if s.groups == nil {
		return
	}
	switch {
	case e.gprev != nil:
		e.gprev.gnext = e.gnext
	case e.gnext != nil:
		s.groups[e.group] = e.gnext
	default:
		delete(s.groups, e.group)
	}
	if e.gnext != nil {
		e.gnext.gprev = e.gprev
	}
	e.gprev, e.gnext = nil, nil
}

// stats adds the shard's counters to st.
func (s *shard[K, V]) stats(st *Stats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Hits += s.hits
	st.Misses += s.misses
	st.Evictions += s.evictions
	st.Size += s.size
}
