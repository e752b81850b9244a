package tablet

import (
	"sync/atomic"
)

// The memtables of all tablets together stay within Options.MemtableBudget:
// past it, the host freezes the largest memtables and flushes them, as a
// tablet server shrinks its memory and the log it must replay with minor
// compactions (paper §5.4). Without it, every tablet written to would hold
// a memtable of up to MemtableSize.

// memWatch is the state of the budget check.
type memWatch struct {
	// grown counts bytes reserved since the last check.
	grown atomic.Int64
}

// noteReserved records that need bytes were reserved in a memtable and
// wakes the check once enough have been since the last one.
func (h *Host) noteReserved(need int64) {
	if h.mem.grown.Add(need) < h.opts.MemtableBudget/16 {
		return
	}
	h.mem.grown.Store(0)
	h.bg.wakeMemCheck()
}

// enforceMemtableBudget freezes the largest active memtables, each to be
// flushed, until what is left unfrozen fits the budget.
func (h *Host) enforceMemtableBudget() {
	ts := h.allTablets()
	var total int64
	for _, t := range ts {
		total += t.memtableBytes()
	}
	for total > h.opts.MemtableBudget {
		t := largestActive(ts)
		if t == nil {
			return
		}
		freed := t.freezeForBudget()
		if freed == 0 {
			return
		}
		total -= freed
	}
}

// largestActive returns the tablet with the largest active memtable, nil
// if every one is empty.
func largestActive(ts []*Tablet) *Tablet {
	var best *Tablet
	var size int64
	for _, t := range ts {
		t.mu.Lock()
		n := t.mem.reserved
		t.mu.Unlock()
		if n > size {
			best, size = t, n
		}
	}
	return best
}

func (h *Host) allTablets() []*Tablet {
	h.mu.Lock()
	defer h.mu.Unlock()
	ts := make([]*Tablet, 0, len(h.tablets))
	for _, t := range h.tablets {
		ts = append(ts, t)
	}
	return ts
}

// memtableBytes is the room reserved in t's memtables, frozen ones too.
func (t *Tablet) memtableBytes() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.mem.reserved
	for _, m := range t.imm {
		n += m.reserved
	}
	return n
}

// freezeForBudget freezes t's memtable and queues its flush, returning the
// bytes that will free; 0 if it cannot (closed, failed, or as many frozen
// memtables as allowed already wait).
func (t *Tablet) freezeForBudget() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.mem.reserved
	if n == 0 || t.closed || t.paused || t.err != nil || len(t.imm) >= t.h.opts.MaxFrozenMemtables {
		return 0
	}
	t.rotateLocked(0, t.h.log.Head())
	t.cond.Broadcast()
	return n
}
