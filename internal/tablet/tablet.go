// Package tablet is one tablet and the host that serves a set of them: a
// memtable and SSTables per tablet over a key range, one commit log shared
// by all tablets of the host, minor, merging and major compactions in the
// background, locality groups, and splits and merges that share SSTables
// (paper §5.3, §5.4, §6).
package tablet

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/commitlog"
	"github.com/tabuladb/tabula/internal/memtable"
)

// Tablet serves the rows [Start, End) of a table.
type Tablet struct {
	h     *Host
	id    uint64
	table string
	start []byte
	end   []byte // nil: to the end of the table
	lower []byte // encoded bounds of the range
	upper []byte

	rowLocks [64]rowLock
	rowSeed  maphash.Seed

	flushMu sync.Mutex // one flush of the tablet at a time

	mu         sync.Mutex
	cond       sync.Cond // signalled when visible or the memtables change
	schema     *Schema
	mem        *memTable
	imm        []*memTable // frozen, oldest first
	vers       *version
	nextSeq    uint64
	visible    uint64
	inflight   []*pendingApply
	flushedSeq uint64
	compacting bool
	err        error // sticky: after a log failure the tablet refuses writes
	closed     bool  // refuses writes for good: host closed, table deleted, or retired
	paused     bool  // a split or merge is under way: writers wait
}

// memTable is a memtable and what the tablet knows of it.
type memTable struct {
	mt       *memtable.Memtable
	writers  sync.WaitGroup // writers that reserved room but have not inserted
	reserved int64
	capacity int64
	redo     commitlog.Pos // log position of its first record
	maxSeq   uint64
}

type pendingApply struct {
	last uint64
	done bool
}

func newTablet(h *Host, id uint64, table string, start, end []byte, schema *Schema) *Tablet {
	t := &Tablet{h: h, id: id, table: table, start: start, end: end, schema: schema, rowSeed: maphash.MakeSeed()}
	t.cond.L = &t.mu
	t.lower = base.RowPrefix(start)
	if end != nil {
		t.upper = base.RowPrefix(end)
	}
	t.vers = newVersion(nil)
	t.nextSeq = 1
	return t
}

// ID is the tablet's identifier within its host.
func (t *Tablet) ID() uint64 { return t.id }

// Table is the name of the tablet's table.
func (t *Tablet) Table() string { return t.table }

// Range returns the tablet's rows [start, end); end is nil at the table's end.
func (t *Tablet) Range() (start, end []byte) { return t.start, t.end }

// Contains reports whether row lies in the tablet's range.
func (t *Tablet) Contains(row []byte) bool {
	return bytes.Compare(row, t.start) >= 0 && (t.end == nil || bytes.Compare(row, t.end) < 0)
}

// Schema returns the tablet's current schema. Callers must not modify it.
func (t *Tablet) Schema() *Schema {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.schema
}

// SetSchema replaces the tablet's schema, and raises the tablet's next
// sequence number to the floor of every family (Family.Floor), so that
// every write to a family lies at or above its floor.
func (t *Tablet) SetSchema(s *Schema) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range s.Families {
		t.nextSeq = max(t.nextSeq, f.Floor)
	}
	t.schema = s
}

func (t *Tablet) newMemTable(minCapacity int64, redo commitlog.Pos) *memTable {
	capacity := max(t.h.opts.MemtableSize, minCapacity)
	return &memTable{
		mt:       memtable.New(memtable.Options{ArenaSize: capacity, Seed: t.h.rand()}),
		capacity: capacity,
		redo:     redo,
		maxSeq:   t.nextSeq - 1,
	}
}

func (t *Tablet) String() string {
	return fmt.Sprintf("tablet %d of %q [%q, %q)", t.id, t.table, t.start, t.end)
}
