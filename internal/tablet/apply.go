package tablet

import (
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/commitlog"
	"github.com/tabuladb/tabula/internal/memtable"
	"github.com/tabuladb/tabula/internal/record"
)

// Apply applies a row mutation atomically: every mutation or none, and all
// become visible to readers at once. It returns once the mutation is
// durable in the commit log.
func (t *Tablet) Apply(row []byte, muts []base.Mutation) error {
	l := t.rowLock(row)
	l.Lock()
	w, err := t.prepare(l, row, muts)
	l.Unlock()
	if err != nil {
		return err
	}
	return w.commit()
}

// rowLock serializes the writers of the rows that hash to it while they
// take their sequence numbers, and a check-and-mutate or read-modify-write
// for the whole of its read and write. A plain write does not hold it while
// its record is synced; last lets a reader that takes the lock wait until
// such writes are visible.
type rowLock struct {
	sync.Mutex
	last uint64 // last sequence number reserved under the lock
}

// rowLock returns the lock of row's stripe.
func (t *Tablet) rowLock(row []byte) *rowLock {
	return &t.rowLocks[t.rowStripe(row)]
}

// rowStripe is the index of row's lock in rowLocks.
func (t *Tablet) rowStripe(row []byte) int {
	return int(maphash.Bytes(t.rowSeed, row) % uint64(len(t.rowLocks)))
}

// settle waits, with l held, until every write reserved under l is
// visible, so that a read of one of l's rows sees every write to it that
// took its place before. It fails once the tablet has failed.
func (t *Tablet) settle(l *rowLock) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.visible < l.last && t.err == nil {
		t.cond.Wait()
	}
	if t.visible < l.last {
		return t.err
	}
	return nil
}

// pendingWrite is row mutations that have their sequence numbers, their
// room in the memtable and their records queued in the commit log.
type pendingWrite struct {
	t     *Tablet
	m     *memTable
	rows  []RowMutation // validated, timestamps resolved
	first uint64        // sequence number of the first mutation
	log   *commitlog.Pending
	apply *pendingApply
}

// prepare checks a row mutation and reserves its place; l, held, is the
// row's lock.
func (t *Tablet) prepare(l *rowLock, row []byte, muts []base.Mutation) (*pendingWrite, error) {
	schema := t.Schema()
	if err := t.validate(schema, row, muts); err != nil {
		return nil, err
	}
	w, err := t.reserve([]RowMutation{{Row: row, Mutations: t.resolveTimestamps(schema, muts)}})
	if err != nil {
		return nil, err
	}
	l.last = w.apply.last
	return w, nil
}

// commit waits until the records are durable, inserts the mutations and
// makes them visible.
func (w *pendingWrite) commit() error {
	err := w.log.Wait()
	if err == nil {
		seq := w.first
		for _, r := range w.rows {
			insert(w.m.mt, r.Row, r.Mutations, seq)
			seq += uint64(len(r.Mutations))
		}
	}
	w.m.writers.Done()
	return w.t.publish(w.apply, err)
}

// applyLocked applies a row mutation with the row's lock l held throughout.
func (t *Tablet) applyLocked(l *rowLock, row []byte, muts []base.Mutation) error {
	w, err := t.prepare(l, row, muts)
	if err != nil {
		return err
	}
	return w.commit()
}

// resolveTimestamps gives server-timestamped mutations the host's time,
// truncated to the table's granularity.
func (t *Tablet) resolveTimestamps(s *Schema, muts []base.Mutation) []base.Mutation {
	var now int64
	out := muts
	for i := range muts {
		if muts[i].Timestamp != base.ServerTimestamp || (muts[i].Kind != base.KindPut && muts[i].Kind != base.KindAggAdd && muts[i].Kind != base.KindAggMerge) {
			continue
		}
		if now == 0 {
			g := s.granularity()
			now = t.h.now() / g * g
			out = append([]base.Mutation(nil), muts...)
		}
		out[i].Timestamp = now
	}
	return out
}

// reserve assigns row mutations their sequence numbers, room in the
// memtable and places in the commit log, all in one order.
func (t *Tablet) reserve(rows []RowMutation) (*pendingWrite, error) {
	var need int64
	for _, r := range rows {
		need += entriesSize(r.Row, r.Mutations)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.waitForRoomLocked(need); err != nil {
		return nil, err
	}
	w := &pendingWrite{t: t, m: t.mem, rows: rows, first: t.nextSeq}
	var rec []byte
	for _, r := range rows {
		rec = record.Append(rec[:0], &record.RowMutation{Tablet: t.id, Seq: t.nextSeq, Row: r.Row, Mutations: r.Mutations})
		pending, err := t.h.log.Write(rec)
		if err != nil {
			t.err = fmt.Errorf("tablet: commit log: %w", err)
			return nil, t.err
		}
		w.log = pending
		t.nextSeq += uint64(len(r.Mutations))
	}
	w.m.reserved += need
	w.m.maxSeq = t.nextSeq - 1
	w.m.writers.Add(1)
	t.h.noteReserved(need)
	w.apply = &pendingApply{last: t.nextSeq - 1}
	t.inflight = append(t.inflight, w.apply)
	return w, nil
}

// waitForRoomLocked makes sure the memtable can take need more bytes,
// freezing it if not, and stalls while too many frozen memtables wait to
// be flushed.
func (t *Tablet) waitForRoomLocked(need int64) error {
	for {
		if t.paused && !t.closed {
			t.cond.Wait()
			continue
		}
		if t.closed {
			return fmt.Errorf("tablet: %v closed: %w", t, base.ErrUnavailable)
		}
		if t.err != nil {
			return t.err
		}
		if t.mem.reserved+need <= t.mem.capacity {
			return nil
		}
		if len(t.imm) >= t.h.opts.MaxFrozenMemtables {
			t.cond.Wait()
			continue
		}
		t.rotateLocked(need, t.h.log.Head())
	}
}

// rotateLocked freezes the memtable and starts a new one whose first
// record lies at redo.
func (t *Tablet) rotateLocked(minCapacity int64, redo commitlog.Pos) {
	if t.mem.reserved > 0 {
		t.imm = append(t.imm, t.mem)
		t.h.scheduleFlush(t)
	}
	t.mem = t.newMemTable(minCapacity, redo)
}

// publish makes the applied mutation visible in sequence order and waits
// until everything up to it is visible.
func (t *Tablet) publish(p *pendingApply, err error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	p.done = true
	if err != nil && t.err == nil {
		t.err = fmt.Errorf("tablet: commit log: %w", err)
	}
	for len(t.inflight) > 0 && t.inflight[0].done {
		t.visible = t.inflight[0].last
		t.inflight = t.inflight[1:]
	}
	t.cond.Broadcast()
	for t.visible < p.last && t.err == nil {
		t.cond.Wait()
	}
	if err != nil {
		return t.err
	}
	return nil
}

// insert adds the entries of a row mutation, numbered from seq, to mt.
func insert(mt *memtable.Memtable, row []byte, muts []base.Mutation, seq uint64) {
	var buf []byte
	for i := range muts {
		key, value := entry(buf[:0], row, &muts[i], seq+uint64(i))
		if err := mt.Add(key, value); err != nil {
			// Room was reserved and sequence numbers are unique, so this
			// is a broken invariant, not an input error.
			panic(fmt.Sprintf("tablet: memtable insert: %v", err))
		}
		buf = key
	}
}

// entry encodes one mutation as a sorted-map entry.
func entry(dst, row []byte, m *base.Mutation, seq uint64) (key, value []byte) {
	fam, qual, ts, value := m.Entry()
	k := base.Key{Row: row, Family: fam, Qualifier: qual, Timestamp: ts, Seq: seq, Kind: m.Kind}
	return base.AppendEncoded(dst, &k), value
}

// entriesSize is the memtable room a row mutation needs.
func entriesSize(row []byte, muts []base.Mutation) int64 {
	var n int64
	for i := range muts {
		fam, qual, ts, value := muts[i].Entry()
		k := base.Key{Row: row, Family: fam, Qualifier: qual, Timestamp: ts}
		n += memtable.EntryOverhead(base.EncodedLen(&k), len(value))
	}
	return n
}
