package tablet

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/commitlog"
	"github.com/tabuladb/tabula/internal/record"
)

// RowMutation is one entry of a batch: a row and its mutations.
type RowMutation struct {
	Row       []byte
	Mutations []base.Mutation
}

// ApplyBatch applies each entry atomically on its own, as Apply does, and
// returns one error per entry, nil where the entry was applied. The
// entries of one tablet go to the commit log together and wait for one
// sync, so a batch costs about what one row does.
func (h *Host) ApplyBatch(name string, rows []RowMutation) []error {
	errs := make([]error, len(rows))
	todo := make([]int, 0, len(rows))
	for i := range rows {
		if errs[i] = ValidateRowKey(rows[i].Row); errs[i] == nil {
			todo = append(todo, i)
		}
	}
	for len(todo) > 0 {
		var again []int
		for _, g := range h.groupByTablet(name, rows, todo, errs) {
			unavailable := g.t.applyGroup(rows, g.idx, errs)
			if len(unavailable) > 0 && g.t.isClosed() && !h.isClosed() {
				// The tablet split or moved under the batch: route again.
				again = append(again, unavailable...)
			}
		}
		todo = again
	}
	return errs
}

// tabletGroup is the entries of a batch that one tablet holds.
type tabletGroup struct {
	t   *Tablet
	idx []int
}

// groupByTablet sorts the entries idx by the tablet that holds their row,
// in the order tablets are first met; an entry whose tablet cannot be
// found gets its error.
func (h *Host) groupByTablet(name string, rows []RowMutation, idx []int, errs []error) []tabletGroup {
	var groups []tabletGroup
	for _, i := range idx {
		t, err := h.TabletFor(name, rows[i].Row)
		if err != nil {
			errs[i] = err
			continue
		}
		k := slices.IndexFunc(groups, func(g tabletGroup) bool { return g.t == t })
		if k < 0 {
			k = len(groups)
			groups = append(groups, tabletGroup{t: t})
		}
		groups[k].idx = append(groups[k].idx, i)
	}
	return groups
}

// applyGroup applies entries idx of rows, all in t, setting their errors.
// It returns the entries that failed because t closed under them.
func (t *Tablet) applyGroup(rows []RowMutation, idx []int, errs []error) []int {
	locks := t.lockRows(rows, idx)
	schema := t.Schema()
	var ok []int
	var resolved [][]base.Mutation
	for _, i := range idx {
		if err := t.validate(schema, rows[i].Row, rows[i].Mutations); err != nil {
			errs[i] = err
			continue
		}
		ok = append(ok, i)
		resolved = append(resolved, t.resolveTimestamps(schema, rows[i].Mutations))
	}
	if len(ok) == 0 {
		unlockRows(locks)
		return nil
	}
	m, r, first, err := t.reserveBatch(rows, ok, resolved)
	if err == nil {
		for _, l := range locks {
			l.last = r.apply.last
		}
	}
	unlockRows(locks)
	if err == nil {
		err = t.commitBatch(rows, ok, resolved, m, r, first)
	}
	for _, i := range ok {
		errs[i] = err
	}
	if errors.Is(err, base.ErrUnavailable) {
		return ok
	}
	return nil
}

// commitBatch waits until the records reserveBatch queued are durable,
// inserts the entries ok and publishes them.
func (t *Tablet) commitBatch(rows []RowMutation, ok []int, resolved [][]base.Mutation, m *memTable, r batchReservation, first uint64) error {
	err := r.log.Wait()
	if err == nil {
		seq := first
		for k, i := range ok {
			insert(m.mt, rows[i].Row, resolved[k], seq)
			seq += uint64(len(resolved[k]))
		}
	}
	m.writers.Done()
	return t.publish(r.apply, err)
}

// batchReservation is what reserveBatch hands back: the last record's
// place in the commit log and the batch's place in the publish order.
type batchReservation struct {
	log   *commitlog.Pending
	apply *pendingApply
}

// reserveBatch is reserve for many rows: their sequence numbers, room in
// the memtable and records in the commit log, in one order. It returns the
// first sequence number.
func (t *Tablet) reserveBatch(rows []RowMutation, ok []int, resolved [][]base.Mutation) (*memTable, batchReservation, uint64, error) {
	var need int64
	for k, i := range ok {
		need += entriesSize(rows[i].Row, resolved[k])
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.waitForRoomLocked(need); err != nil {
		return nil, batchReservation{}, 0, err
	}
	first := t.nextSeq
	var r batchReservation
	var rec []byte
	for k, i := range ok {
		rec = record.Append(rec[:0], &record.RowMutation{Tablet: t.id, Seq: t.nextSeq, Row: rows[i].Row, Mutations: resolved[k]})
		pending, err := t.h.log.Write(rec)
		if err != nil {
			t.err = fmt.Errorf("tablet: commit log: %w", err)
			return nil, batchReservation{}, 0, t.err
		}
		r.log = pending
		t.nextSeq += uint64(len(resolved[k]))
	}
	m := t.mem
	m.reserved += need
	m.maxSeq = t.nextSeq - 1
	m.writers.Add(1)
	t.h.noteReserved(need)
	r.apply = &pendingApply{last: t.nextSeq - 1}
	t.inflight = append(t.inflight, r.apply)
	return m, r, first, nil
}

// lockRows takes the row locks of entries idx, in stripe order so that
// batches cannot deadlock, each stripe once, and returns them.
func (t *Tablet) lockRows(rows []RowMutation, idx []int) []*rowLock {
	stripes := make([]int, 0, len(idx))
	for _, i := range idx {
		stripes = append(stripes, t.rowStripe(rows[i].Row))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	locks := make([]*rowLock, len(stripes))
	for k, s := range stripes {
		locks[k] = &t.rowLocks[s]
		locks[k].Lock()
	}
	return locks
}

func unlockRows(locks []*rowLock) {
	for _, l := range locks {
		l.Unlock()
	}
}
