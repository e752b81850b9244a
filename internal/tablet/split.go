package tablet

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/tabuladb/tabula/internal/base"
)

// Split splits a tablet at row key at into [start, at) and [at, end). The
// two children share the parent's SSTables, each reading only its own
// range, until their own compactions rewrite them (paper §5.3, §6); a file
// is deleted only when neither refers to it.
func (h *Host) Split(tabletID uint64, at []byte) error {
	h.reshapeMu.Lock()
	defer h.reshapeMu.Unlock()
	parent, err := h.tablet(tabletID)
	if err != nil {
		return err
	}
	if !parent.Contains(at) || bytes.Equal(at, parent.start) {
		return base.InvalidArgf("tablet: split key %q is not inside %v", at, parent)
	}
	if err := parent.quiesce(); err != nil {
		return err
	}
	h.mu.Lock()
	tb := h.tables[parent.table]
	left := h.childLocked(parent, parent.start, bytes.Clone(at), parent.vers)
	right := h.childLocked(parent, bytes.Clone(at), parent.end, parent.vers)
	h.replaceLocked(tb, []*Tablet{parent}, []*Tablet{left, right})
	h.mu.Unlock()
	parent.retire()
	return openChildren([]*Tablet{left, right}, h.persist())
}

// Merge joins two neighbouring tablets of a table into one.
func (h *Host) Merge(leftID, rightID uint64) error {
	h.reshapeMu.Lock()
	defer h.reshapeMu.Unlock()
	l, err := h.tablet(leftID)
	if err != nil {
		return err
	}
	r, err := h.tablet(rightID)
	if err != nil {
		return err
	}
	if l.table != r.table || l.end == nil || !bytes.Equal(l.end, r.start) {
		return base.InvalidArgf("tablet: %v and %v are not neighbours", l, r)
	}
	for _, t := range []*Tablet{l, r} {
		err := t.quiesce()
		if err == nil {
			err = t.trimShared()
		}
		if err != nil {
			l.reopen()
			r.reopen()
			return err
		}
	}
	h.mu.Lock()
	groups := map[string][]*fileMeta{}
	for _, v := range []*version{l.vers, r.vers} {
		for g, fs := range v.groups {
			groups[g] = append(groups[g], fs...)
		}
	}
	joined := newVersion(groups)
	m := h.childLocked(l, l.start, r.end, joined)
	joined.unref()
	m.nextSeq = max(l.nextSeq, r.nextSeq)
	m.flushedSeq = max(l.flushedSeq, r.flushedSeq)
	m.visible = m.nextSeq - 1
	m.mem.maxSeq = m.nextSeq - 1
	h.replaceLocked(h.tables[l.table], []*Tablet{l, r}, []*Tablet{m})
	h.mu.Unlock()
	l.retire()
	r.retire()
	return openChildren([]*Tablet{m}, h.persist())
}

func (h *Host) tablet(id uint64) (*Tablet, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.tablets[id]
	if t == nil {
		return nil, base.NotFoundf("tablet: no tablet %d", id)
	}
	return t, nil
}

// quiesce stops the tablet taking writes, waits for those in flight and
// for a running compaction, and flushes it, so that all its data is in
// SSTables and nothing of it needs replaying from the log.
func (t *Tablet) quiesce() error {
	t.pause()
	t.flushMu.Lock()
	defer t.flushMu.Unlock()
	t.mu.Lock()
	if t.mem.reserved > 0 {
		t.imm = append(t.imm, t.mem)
		t.mem = t.newMemTable(0, t.h.log.Head())
	}
	t.mu.Unlock()
	for {
		t.mu.Lock()
		n, err := len(t.imm), t.err
		t.mu.Unlock()
		if err != nil {
			t.reopen()
			return err
		}
		if n == 0 {
			return nil
		}
		if err := t.flush(); err != nil {
			t.reopen()
			return err
		}
	}
}

// trimShared rewrites the files t still shares with a former sibling of a
// split into files of its own rows. A shared file holds the sibling's rows
// as they were at the split; the sibling may have deleted them since, and a
// merged tablet must not see them again. t must be quiesced.
func (t *Tablet) trimShared() error {
	t.mu.Lock()
	var plans []compactionPlan
	for _, g := range sortedKeys(t.vers.groups) {
		for _, f := range t.vers.groups[g] {
			if !t.owns(f) {
				plans = append(plans, compactionPlan{group: g, inputs: []*fileMeta{f}})
			}
		}
	}
	t.mu.Unlock()
	for _, p := range plans {
		if err := t.rewrite(p); err != nil {
			return err
		}
	}
	return nil
}

// owns reports whether every key of f lies in the tablet's range.
func (t *Tablet) owns(f *fileMeta) bool {
	return bytes.Compare(f.Smallest, t.lower) >= 0 && (t.upper == nil || bytes.Compare(f.Largest, t.upper) < 0)
}

// pause makes writers wait and waits for the writes in flight and for a
// running compaction.
func (t *Tablet) pause() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.paused = true
	for len(t.inflight) > 0 || t.compacting {
		t.cond.Wait()
	}
}

// reopen lets a paused tablet take writes again: a tablet whose split or
// merge failed, or a new tablet once the manifest records it.
func (t *Tablet) reopen() {
	t.mu.Lock()
	t.paused = false
	t.cond.Broadcast()
	t.mu.Unlock()
}

// open lets the children of a split or merge take writes once the
// manifest that records them is durable: a write logged for a tablet the
// manifest does not know would be lost in recovery. If the manifest could
// not be written, the children refuse writes.
func openChildren(children []*Tablet, persistErr error) error {
	for _, c := range children {
		if persistErr != nil {
			c.mu.Lock()
			if c.err == nil {
				c.err = fmt.Errorf("tablet: manifest not written: %w", persistErr)
			}
			c.mu.Unlock()
		}
		c.reopen()
	}
	return persistErr
}

// retire drops a split or merged tablet's hold on its files. Readers that
// still hold its snapshots keep theirs.
func (t *Tablet) retire() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.vers.unref()
	t.vers = nil
	t.closed, t.paused = true, false
	t.cond.Broadcast()
}

// childLocked makes a tablet over [start, end) that takes over vers's
// files and the parent's sequence numbers.
func (h *Host) childLocked(parent *Tablet, start, end []byte, vers *version) *Tablet {
	c := h.newTabletLocked(parent.table, start, end, parent.schema)
	c.paused = true // until the manifest records it; see openChildren
	c.vers.unref()
	vers.ref()
	c.vers = vers
	c.nextSeq, c.flushedSeq = parent.nextSeq, parent.flushedSeq
	c.visible = c.nextSeq - 1
	c.mem.maxSeq = c.nextSeq - 1
	return c
}

// replaceLocked swaps old tablets of a table for new ones.
func (h *Host) replaceLocked(tb *table, old, repl []*Tablet) {
	tb.tablets = slices.DeleteFunc(tb.tablets, func(t *Tablet) bool { return slices.Contains(old, t) })
	tb.tablets = append(tb.tablets, repl...)
	sortTablets(tb.tablets)
	for _, t := range old {
		delete(h.tablets, t.id)
	}
}
