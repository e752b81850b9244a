package memtable

import "bytes"

// splice holds, for each level, the nodes a new key goes between.
type splice struct {
	prev, next [maxHeight]uint32
}

// findSplice fills s for key and reports whether key is present.
func (m *Memtable) findSplice(key []byte, s *splice) bool {
	top := int(m.height.Load())
	for l := top; l < maxHeight; l++ {
		s.prev[l], s.next[l] = m.head, m.tail
	}
	pred, next, found := m.head, m.tail, false
	for l := top - 1; l >= 0; l-- {
		pred, next, found = m.seekLevel(pred, next, found, l, key)
		s.prev[l], s.next[l] = pred, next
	}
	return found
}

// spliceValid reports whether the levels below height of s are still
// adjacent. Nodes are never removed, so an unchanged link means nothing was
// inserted between.
func (m *Memtable) spliceValid(s *splice, height int) bool {
	for l := range height {
		if m.next(s.prev[l], l) != s.next[l] {
			return false
		}
	}
	return true
}

// link publishes node nd between the nodes of s. Its own links are set
// first; then, bottom up, the links into it, so a reader following links
// only ever reaches a complete node.
func (m *Memtable) link(nd uint32, height int, s *splice) {
	m.setPrev(nd, s.prev[0])
	for l := range height {
		m.setNext(nd, l, s.next[l])
	}
	m.setNext(s.prev[0], 0, nd)
	m.setPrev(s.next[0], nd)
	for l := 1; l < height; l++ {
		m.setNext(s.prev[l], l, nd)
	}
	if uint32(height) > m.height.Load() {
		m.height.Store(uint32(height))
	}
}

// hintFits reports whether key lies strictly between the level-0 nodes of
// the hint splice. Since the hint's nodes at higher levels are no later
// (prev) and no earlier (next) than those at level 0, key then fits the
// whole splice if its links are unchanged.
func (m *Memtable) hintFits(key []byte) bool {
	p, n := m.hint.prev[0], m.hint.next[0]
	return (p == m.head || bytes.Compare(m.key(p), key) < 0) &&
		(n == m.tail || bytes.Compare(key, m.key(n)) < 0)
}

// setHint makes the hint the splice just after node nd, linked by s.
func (m *Memtable) setHint(nd uint32, height int, s *splice) {
	m.hint = *s
	for l := range height {
		m.hint.prev[l] = nd
	}
}

// seekLevel walks level l from pred, which is before key, to the last node
// before key. It returns that node, its successor at level l, and whether
// the successor holds key. bound is pred's successor one level up, already
// known to be at or after key (eq tells whether it holds key), so reaching
// it ends the walk without another comparison.
func (m *Memtable) seekLevel(pred, bound uint32, eq bool, l int, key []byte) (uint32, uint32, bool) {
	for {
		next := m.next(pred, l)
		if next == bound {
			return pred, next, eq
		}
		if next == m.tail {
			return pred, next, false
		}
		if c := bytes.Compare(m.key(next), key); c >= 0 {
			return pred, next, c == 0
		}
		pred = next
	}
}

// findLT returns the last node before key (possibly head) and its
// successor at level 0 (possibly tail).
func (m *Memtable) findLT(key []byte) (pred, next uint32) {
	pred, next, eq := m.head, m.tail, false
	for l := int(m.height.Load()) - 1; l >= 0; l-- {
		pred, next, eq = m.seekLevel(pred, next, eq, l, key)
	}
	return pred, next
}
