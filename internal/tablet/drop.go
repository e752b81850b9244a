package tablet

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/tabuladb/tabula/internal/base"
)

// dropBatch is how many rows DropRowRange deletes at a time in a tablet
// the range covers in part, and dropWriters how many deletes it keeps in
// flight, so that group commit batches them.
const (
	dropBatch   = 1024
	dropWriters = 16
)

// DropRowRange deletes every row of a table in [start, end): end nil means
// to the end of the table, and start nil or empty with end nil means the
// whole table (Cloud Bigtable's DropRowRange; a prefix p is the range
// [p, base.PrefixEnd(p))). A tablet the range covers whole is emptied at
// once: its files and memtables are dropped and the manifest that records
// it is durable before DropRowRange returns. In a tablet the range covers
// in part, each row is deleted by a row tombstone. Writes that run
// concurrently with DropRowRange may or may not survive it.
func (h *Host) DropRowRange(table string, start, end []byte) error {
	if end != nil && bytes.Compare(start, end) > 0 {
		return base.InvalidArgf("tablet: drop range [%q, %q) is reversed", start, end)
	}
	partial, err := h.dropCovered(table, start, end)
	if err != nil {
		return err
	}
	for _, r := range partial {
		if err := h.deleteRows(table, r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}

// dropCovered empties the table's tablets that lie inside [start, end),
// and returns the parts of the range in tablets it covers only in part.
func (h *Host) dropCovered(table string, start, end []byte) ([][2][]byte, error) {
	h.reshapeMu.Lock()
	defer h.reshapeMu.Unlock()
	ts, err := h.Tablets(table)
	if err != nil {
		return nil, err
	}
	var partial [][2][]byte
	var dropped []*Tablet
	for _, t := range ts {
		if !t.overlaps(start, end) || (end != nil && bytes.Equal(start, end)) {
			continue
		}
		if bytes.Compare(t.start, start) >= 0 && (end == nil || (t.end != nil && bytes.Compare(t.end, end) <= 0)) {
			t.dropAll()
			dropped = append(dropped, t)
			continue
		}
		lo, hi := start, end
		if bytes.Compare(t.start, lo) > 0 {
			lo = t.start
		}
		if t.end != nil && (hi == nil || bytes.Compare(t.end, hi) < 0) {
			hi = t.end
		}
		partial = append(partial, [2][]byte{lo, hi})
	}
	if len(dropped) == 0 {
		return partial, nil
	}
	err = h.persist()
	for _, t := range dropped {
		t.mu.Lock()
		if err != nil && t.err == nil {
			t.err = fmt.Errorf("tablet: manifest not written after a drop: %w", err)
		}
		t.mu.Unlock()
		t.reopen()
	}
	return partial, err
}

// dropAll empties the tablet: no files, empty memtables, and everything
// logged for it so far flushed as far as recovery knows, so that nothing
// of it is replayed. The tablet is left paused, to be reopened once the
// manifest that records the drop is durable.
func (t *Tablet) dropAll() {
	t.pause()
	t.flushMu.Lock() // wait out a running flush
	defer t.flushMu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.vers == nil || t.closed {
		return // retired or deleted
	}
	old := t.vers
	t.vers = newVersion(nil)
	old.unref()
	t.imm = nil
	t.mem = t.newMemTable(0, t.h.log.Head())
	t.flushedSeq = t.nextSeq - 1
	t.cond.Broadcast()
}

// deleteRows writes a row tombstone for every row of the table in
// [start, end), in batches.
func (h *Host) deleteRows(table string, start, end []byte) error {
	for {
		var rows [][]byte
		err := h.Scan(table, ScanOptions{Start: start, End: end}, func(r base.Row) bool {
			rows = append(rows, r.Key)
			return len(rows) < dropBatch
		})
		if err != nil {
			return err
		}
		if err := h.deleteEach(table, rows); err != nil {
			return err
		}
		if len(rows) < dropBatch {
			return nil
		}
		start = append(bytes.Clone(rows[len(rows)-1]), 0)
	}
}

// deleteEach deletes the rows, dropWriters at a time.
func (h *Host) deleteEach(table string, rows [][]byte) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs error
		sem  = make(chan struct{}, dropWriters)
	)
	del := []base.Mutation{{Kind: base.KindDeleteRow}}
	for _, row := range rows {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := h.Apply(table, row, del); err != nil {
				mu.Lock()
				errs = errors.Join(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errs
}
