package tablet

import (
	"bytes"
	"container/heap"
	"errors"

	"github.com/tabuladb/tabula/internal/base"
)

// mergingIter merges child iterators whose keys are disjoint (sequence
// numbers are unique within a tablet) into one ordered stream. It moves in
// both directions; a change of direction re-seeks every child around the
// current key.
type mergingIter struct {
	children []base.Iterator
	h        iterHeap
	forward  bool
	err      error
}

func newMergingIter(children []base.Iterator) *mergingIter {
	m := &mergingIter{children: children, forward: true}
	m.h.items = make([]base.Iterator, 0, len(children))
	return m
}

type iterHeap struct {
	items   []base.Iterator
	reverse bool
}

func (h *iterHeap) Len() int { return len(h.items) }
func (h *iterHeap) Less(i, j int) bool {
	c := bytes.Compare(h.items[i].Key(), h.items[j].Key())
	if h.reverse {
		return c > 0
	}
	return c < 0
}
func (h *iterHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *iterHeap) Push(x any)    { h.items = append(h.items, x.(base.Iterator)) }
func (h *iterHeap) Pop() any {
	n := len(h.items) - 1
	it := h.items[n]
	h.items = h.items[:n]
	return it
}

// rebuild positions every child with pos and heapifies the ones that stand
// on an entry.
func (m *mergingIter) rebuild(forward bool, pos func(base.Iterator) bool) bool {
	m.forward = forward
	m.h.reverse = !forward
	m.h.items = m.h.items[:0]
	for _, c := range m.children {
		if pos(c) {
			m.h.items = append(m.h.items, c)
		} else if err := c.Error(); err != nil {
			m.err = errors.Join(m.err, err)
		}
	}
	heap.Init(&m.h)
	return m.valid()
}

func (m *mergingIter) valid() bool { return m.err == nil && len(m.h.items) > 0 }

func (m *mergingIter) SeekGE(key []byte) bool {
	return m.rebuild(true, func(c base.Iterator) bool { return c.SeekGE(key) })
}

func (m *mergingIter) SeekLT(key []byte) bool {
	return m.rebuild(false, func(c base.Iterator) bool { return c.SeekLT(key) })
}

func (m *mergingIter) First() bool {
	return m.rebuild(true, func(c base.Iterator) bool { return c.First() })
}

func (m *mergingIter) Last() bool {
	return m.rebuild(false, func(c base.Iterator) bool { return c.Last() })
}

func (m *mergingIter) Next() bool {
	if !m.valid() {
		return false
	}
	if !m.forward {
		key := bytes.Clone(m.Key())
		return m.SeekGE(append(key, 0))
	}
	return m.step(func(c base.Iterator) bool { return c.Next() })
}

func (m *mergingIter) Prev() bool {
	if !m.valid() {
		return false
	}
	if m.forward {
		return m.SeekLT(bytes.Clone(m.Key()))
	}
	return m.step(func(c base.Iterator) bool { return c.Prev() })
}

// step advances the top child and restores the heap.
func (m *mergingIter) step(move func(base.Iterator) bool) bool {
	top := m.h.items[0]
	if move(top) {
		heap.Fix(&m.h, 0)
	} else {
		if err := top.Error(); err != nil {
			m.err = errors.Join(m.err, err)
		}
		heap.Pop(&m.h)
	}
	return m.valid()
}

func (m *mergingIter) Key() []byte   { return m.h.items[0].Key() }
func (m *mergingIter) Value() []byte { return m.h.items[0].Value() }
func (m *mergingIter) Error() error  { return m.err }

func (m *mergingIter) Close() error {
	err := m.err
	for _, c := range m.children {
		err = errors.Join(err, c.Close())
	}
	m.children, m.h.items = nil, nil
	return err
}
