package tablet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path"
	"slices"
	"sync"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/cache"
	"github.com/tabuladb/tabula/internal/commitlog"
	"github.com/tabuladb/tabula/internal/record"
)

// Host serves a set of tablets that share one commit log, one block cache
// and one directory (the storage half of a tablet server, paper §5.3):
//
//	DIR/LOCK        held while the host is open
//	DIR/MANIFEST    tables, tablets and their SSTables
//	DIR/log/        the commit log
//	DIR/sst/        SSTables, shared by tablets after a split
type Host struct {
	opts  Options
	log   *commitlog.Log
	cache *cache.BlockCache
	// rowCache holds rows' SSTable entries; nil when RowCacheSize is 0.
	rowCache *cache.RowCache[*cachedRow]
	lock     io.Closer

	randMu sync.Mutex
	rng    *rand.Rand

	mu         sync.Mutex // guards the fields below
	tables     map[string]*table
	tablets    map[uint64]*Tablet
	files      map[uint64]*fileMeta
	nextFile   uint64
	nextTablet uint64
	closed     bool

	persistMu sync.Mutex // serializes manifest writes
	reshapeMu sync.Mutex // one split or merge at a time

	bg  bgWork
	mem memWatch
}

type table struct {
	schema  *Schema
	tablets []*Tablet // sorted by start row
}

// Open opens or creates a host in opts.Dir, replays its commit log, and
// starts its background work.
func Open(opts Options) (*Host, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	h := &Host{opts: opts, rng: rand.New(rand.NewPCG(opts.Seed, 0)), tables: map[string]*table{},
		tablets: map[uint64]*Tablet{}, files: map[uint64]*fileMeta{}}
	if err := h.open(); err != nil {
		h.closeResources()
		return nil, err
	}
	h.bg.start(h)
	return h, nil
}

func (h *Host) open() error {
	fsys, dir := h.opts.FS, h.opts.Dir
	for _, d := range []string{dir, h.sstDir(), path.Join(dir, "log")} {
		if err := fsys.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("tablet: %w", err)
		}
	}
	lock, err := fsys.Lock(path.Join(dir, "LOCK"))
	if err != nil {
		return fmt.Errorf("tablet: %s is in use by another process: %w", dir, err)
	}
	h.lock = lock
	m, err := readManifest(fsys, dir)
	if err != nil {
		return err
	}
	h.load(m)
	h.cache = cache.NewBlockCache(h.opts.BlockCacheSize)
	if h.opts.RowCacheSize > 0 {
		h.rowCache = cache.NewRowCache[*cachedRow](h.opts.RowCacheSize)
	}
	h.log, err = commitlog.Open(commitlog.Options{FS: fsys, Dir: path.Join(dir, "log"), SegmentSize: h.opts.LogSegmentSize})
	if err != nil {
		return err
	}
	if err := h.recover(m); err != nil {
		return err
	}
	if err := h.sweep(); err != nil {
		return err
	}
	return h.persist()
}

func (h *Host) sstDir() string { return path.Join(h.opts.Dir, "sst") }

func (h *Host) sstPath(num uint64) string {
	return path.Join(h.sstDir(), fmt.Sprintf("%012d.sst", num))
}

// load builds tables, tablets and files from the manifest.
func (h *Host) load(m *manifest) {
	h.nextFile, h.nextTablet = max(m.NextFile, 1), max(m.NextTablet, 1)
	for name, s := range m.Tables {
		h.tables[name] = &table{schema: s}
	}
	for _, st := range m.Tablets {
		tb := h.tables[st.Table]
		if tb == nil {
			continue
		}
		t := newTablet(h, st.ID, st.Table, st.Start, st.End, tb.schema)
		groups := map[string][]*fileMeta{}
		for _, f := range st.Files {
			if known := h.files[f.Num]; known != nil {
				f = known
			} else {
				h.files[f.Num] = f
			}
			groups[f.Group] = append(groups[f.Group], f)
		}
		t.vers.unref()
		t.vers = newVersion(groups)
		t.flushedSeq, t.nextSeq = st.FlushedSeq, max(st.NextSeq, st.FlushedSeq+1, 1)
		t.mem = t.newMemTable(0, st.Redo)
		h.tablets[t.id] = t
		tb.tablets = append(tb.tablets, t)
	}
	for _, tb := range h.tables {
		sortTablets(tb.tablets)
	}
}

func sortTablets(ts []*Tablet) {
	slices.SortFunc(ts, func(a, b *Tablet) int { return bytes.Compare(a.start, b.start) })
}

// recover replays the commit log into the tablets' memtables: each record
// past its tablet's redo point and not yet flushed.
func (h *Host) recover(m *manifest) error {
	from := commitlog.Pos{}
	first := true
	for _, t := range h.tablets {
		if first || t.mem.redo.Less(from) {
			from, first = t.mem.redo, false
		}
	}
	replayed := map[*Tablet]bool{}
	err := h.log.Replay(from, func(pos commitlog.Pos, rec []byte) error {
		r, err := record.Decode(rec)
		if err != nil {
			return fmt.Errorf("tablet: log record at %v: %w", pos, err)
		}
		t := h.tablets[r.Tablet]
		last := r.Seq + uint64(len(r.Mutations)) - 1
		if t == nil || pos.Less(t.mem.redo) || last <= t.flushedSeq {
			return nil
		}
		t.replay(pos, r.Row, r.Mutations, r.Seq)
		replayed[t] = true
		return nil
	})
	if err != nil {
		return err
	}
	head := h.log.Head()
	for _, t := range h.tablets {
		t.visible = t.nextSeq - 1
		if !replayed[t] {
			t.mem.redo = head
		}
	}
	return nil
}

// replay inserts a logged row mutation into the memtable.
func (t *Tablet) replay(pos commitlog.Pos, row []byte, muts []base.Mutation, seq uint64) {
	need := entriesSize(row, muts)
	if t.mem.reserved+need > t.mem.capacity {
		t.rotateLocked(need, pos)
	}
	t.mem.reserved += need
	insert(t.mem.mt, row, muts, seq)
	t.nextSeq = max(t.nextSeq, seq+uint64(len(muts)))
	t.mem.maxSeq = t.nextSeq - 1
}

// sweep deletes SSTables and temporary files no manifest refers to: what a
// crash left behind.
func (h *Host) sweep() error {
	names, err := h.opts.FS.List(h.sstDir())
	if err != nil {
		return fmt.Errorf("tablet: %w", err)
	}
	for _, name := range names {
		var num uint64
		if _, err := fmt.Sscanf(name, "%012d.sst", &num); err == nil && h.files[num] != nil {
			h.nextFile = max(h.nextFile, num+1)
			continue
		}
		if err := h.opts.FS.Remove(path.Join(h.sstDir(), name)); err != nil {
			return fmt.Errorf("tablet: sweep: %w", err)
		}
	}
	return nil
}

// persist writes the manifest, then frees what it no longer needs: log
// segments behind every tablet's redo point, and SSTables no tablet uses.
func (h *Host) persist() error {
	h.persistMu.Lock()
	defer h.persistMu.Unlock()
	m, redo, ok := h.snapshotManifest()
	if err := writeManifest(h.opts.FS, h.opts.Dir, m); err != nil {
		return err
	}
	live := map[uint64]bool{}
	for _, st := range m.Tablets {
		for _, f := range st.Files {
			live[f.Num] = true
		}
	}
	err := h.deleteUnused(live)
	if ok {
		err = errors.Join(err, h.log.Release(redo))
	}
	return err
}

// snapshotManifest captures the durable state of every tablet, and the
// lowest redo point among them.
func (h *Host) snapshotManifest() (*manifest, commitlog.Pos, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := &manifest{NextFile: h.nextFile, NextTablet: h.nextTablet, Tables: map[string]*Schema{}}
	for name, tb := range h.tables {
		m.Tables[name] = tb.schema
	}
	var minRedo commitlog.Pos
	have := false
	for _, name := range sortedKeys(h.tables) {
		for _, t := range h.tables[name].tablets {
			st := t.state()
			m.Tablets = append(m.Tablets, st)
			if !have || st.Redo.Less(minRedo) {
				minRedo, have = st.Redo, true
			}
		}
	}
	if !have {
		minRedo, have = h.log.Head(), true
	}
	return m, minRedo, have
}

func (t *Tablet) state() tabletState {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.mem
	if len(t.imm) > 0 {
		m = t.imm[0]
	}
	st := tabletState{ID: t.id, Table: t.table, Start: t.start, End: t.end, Redo: m.redo,
		FlushedSeq: t.flushedSeq, NextSeq: t.nextSeq}
	for _, g := range sortedKeys(t.vers.groups) {
		st.Files = append(st.Files, t.vers.groups[g]...)
	}
	return st
}

// deleteUnused deletes the SSTables that neither a live version nor the
// persisted manifest refers to.
func (h *Host) deleteUnused(live map[uint64]bool) error {
	h.mu.Lock()
	var dead []*fileMeta
	for num, f := range h.files {
		if !live[num] && f.refs.Load() == 0 {
			dead = append(dead, f)
			delete(h.files, num)
		}
	}
	h.mu.Unlock()
	var err error
	for _, f := range dead {
		if f.reader != nil {
			err = errors.Join(err, f.reader.Close())
		}
		h.cache.EvictFile(f.Num)
		err = errors.Join(err, h.opts.FS.Remove(h.sstPath(f.Num)))
	}
	return err
}

func (h *Host) now() int64 { return h.opts.Clock().UnixMicro() }

func (h *Host) rand() uint64 {
	h.randMu.Lock()
	defer h.randMu.Unlock()
	return h.rng.Uint64()
}

func (h *Host) newFileNum() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.nextFile
	h.nextFile++
	return n
}

// Close stops background work, waits for it, and closes the log. Data not
// yet flushed stays in the log and is replayed by the next Open.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	tablets := make([]*Tablet, 0, len(h.tablets))
	for _, t := range h.tablets {
		tablets = append(tablets, t)
	}
	h.mu.Unlock()
	for _, t := range tablets {
		t.close()
	}
	h.bg.stop()
	return h.closeResources()
}

func (h *Host) closeResources() error {
	var err error
	if h.log != nil {
		err = h.log.Close()
	}
	for _, f := range h.files {
		if f.reader != nil {
			err = errors.Join(err, f.reader.Close())
		}
	}
	if h.lock != nil {
		err = errors.Join(err, h.lock.Close())
	}
	return err
}

// close stops the tablet taking writes and waits for those in flight.
func (t *Tablet) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	t.cond.Broadcast()
	for len(t.inflight) > 0 || t.compacting {
		t.cond.Wait()
	}
}
