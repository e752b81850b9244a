package tablet

import "sync"

// bgWork runs flushes and compactions in the background: one worker for
// each, so a long compaction never holds up a flush. The compaction worker
// also splits tablets that have outgrown Options.SplitSize.
type bgWork struct {
	mu      sync.Mutex
	cond    sync.Cond
	flush   []*Tablet
	compact []*Tablet
	// memDue asks the memtable budget check to run.
	memDue  bool
	stopped bool
	wg      sync.WaitGroup
}

func (b *bgWork) start(h *Host) {
	b.cond.L = &b.mu
	if h.opts.TestingKnobs.DisableBackground {
		return
	}
	b.wg.Add(3)
	go b.runMemCheck(h)
	go b.run(&b.flush, func(t *Tablet) {
		if err := h.flushTablet(t); err != nil {
			h.opts.Logger.Error("flush failed", "tablet", t.String(), "err", err)
			return
		}
		h.scheduleCompaction(t)
	})
	go b.run(&b.compact, func(t *Tablet) {
		if err := t.maybeCompact(); err != nil {
			h.opts.Logger.Error("compaction failed", "tablet", t.String(), "err", err)
			return
		}
		if err := h.maybeSplit(t); err != nil {
			h.opts.Logger.Error("split failed", "tablet", t.String(), "err", err)
		}
	})
}

func (b *bgWork) run(queue *[]*Tablet, do func(*Tablet)) {
	defer b.wg.Done()
	for {
		b.mu.Lock()
		for len(*queue) == 0 && !b.stopped {
			b.cond.Wait()
		}
		if b.stopped {
			b.mu.Unlock()
			return
		}
		t := (*queue)[0]
		*queue = (*queue)[1:]
		b.mu.Unlock()
		do(t)
	}
}

// runMemCheck runs the memtable budget check whenever it is due.
func (b *bgWork) runMemCheck(h *Host) {
	defer b.wg.Done()
	for {
		b.mu.Lock()
		for !b.memDue && !b.stopped {
			b.cond.Wait()
		}
		stopped := b.stopped
		b.memDue = false
		b.mu.Unlock()
		if stopped {
			return
		}
		h.enforceMemtableBudget()
	}
}

func (b *bgWork) wakeMemCheck() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.memDue = true
	b.cond.Broadcast()
}

func (b *bgWork) add(queue *[]*Tablet, t *Tablet) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, q := range *queue {
		if q == t {
			return
		}
	}
	*queue = append(*queue, t)
	b.cond.Broadcast()
}

func (b *bgWork) stop() {
	b.mu.Lock()
	b.stopped = true
	b.cond.Broadcast()
	b.mu.Unlock()
	b.wg.Wait()
}

func (h *Host) scheduleFlush(t *Tablet) {
	if !h.opts.TestingKnobs.DisableBackground {
		h.bg.add(&h.bg.flush, t)
	}
}

func (h *Host) scheduleCompaction(t *Tablet) {
	if !h.opts.TestingKnobs.DisableBackground {
		h.bg.add(&h.bg.compact, t)
	}
}

// flushTablet writes every frozen memtable of t, one flush of a tablet at
// a time. A failed flush leaves the memtable frozen and the tablet
// refusing writes: its data is still in the log.
func (h *Host) flushTablet(t *Tablet) error {
	t.flushMu.Lock()
	defer t.flushMu.Unlock()
	for {
		t.mu.Lock()
		n := len(t.imm)
		t.mu.Unlock()
		if n == 0 {
			return nil
		}
		if err := t.flush(); err != nil {
			t.mu.Lock()
			if t.err == nil {
				t.err = err
			}
			t.cond.Broadcast()
			t.mu.Unlock()
			return err
		}
	}
}
