package tablet

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tabuladb/tabula/internal/base"
)

// flush writes the oldest frozen memtable to one SSTable per locality
// group (a minor compaction, paper §5.4) and installs them.
func (t *Tablet) flush() error {
	t.mu.Lock()
	if len(t.imm) == 0 {
		t.mu.Unlock()
		return nil
	}
	m, schema, groups := t.imm[0], t.schema, t.groupsLocked()
	t.mu.Unlock()
	m.writers.Wait()

	it := m.mt.NewIter()
	byFamily := map[string][]string{}
	route := func(k *base.Key) []string {
		if k.Kind == base.KindDeleteRow {
			return groups
		}
		g, ok := byFamily[k.Family]
		if !ok {
			g = []string{schema.GroupOf(k.Family)}
			byFamily[k.Family] = g
		}
		return g
	}
	// Each entry adds at most a row and a column to the Bloom filter.
	files, err := t.h.writeTables(it, schema, groups, route, 2*m.mt.Len())
	if err != nil {
		return fmt.Errorf("tablet: flush of %v: %w", t, err)
	}
	t.mu.Lock()
	t.installLocked(nil, files)
	t.imm = t.imm[1:]
	t.flushedSeq = m.maxSeq
	t.cond.Broadcast()
	t.mu.Unlock()
	return t.h.persist()
}

// groupsLocked lists the locality groups a row tombstone must reach: every
// group of the schema and every group that holds files.
func (t *Tablet) groupsLocked() []string {
	set := map[string]bool{DefaultGroup: true}
	for name := range t.schema.Families {
		set[t.schema.GroupOf(name)] = true
	}
	for g := range t.vers.groups {
		set[g] = true
	}
	groups := make([]string, 0, len(set))
	for g := range set {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	return groups
}

// installLocked replaces the tablet's version with one that drops removed
// and adds added. The added files come from writeTables, which holds a
// reference on each so that no persist deletes them before they are
// installed; the new version takes its own and that one is dropped here.
func (t *Tablet) installLocked(removed, added []*fileMeta) {
	old := t.vers
	t.vers = old.edit(removed, added)
	old.unref()
	for _, f := range added {
		f.unref()
	}
}

// compactionPlan is what one compaction of a group does.
type compactionPlan struct {
	group  string
	inputs []*fileMeta
	major  bool // all files of the group: drop tombstones and GC'd cells
}

// pickCompaction decides whether a group's files need compacting: once
// they number more than maxFiles, merge all but the largest if it
// outweighs the rest, else compact them all into one (major).
func pickCompaction(group string, files []*fileMeta, maxFiles int) (compactionPlan, bool) {
	if len(files) <= maxFiles {
		return compactionPlan{}, false
	}
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b *fileMeta) int { return -cmpUint(a.Size, b.Size) })
	var rest uint64
	for _, f := range sorted[1:] {
		rest += f.Size
	}
	if sorted[0].Size >= rest {
		return compactionPlan{group: group, inputs: sorted[1:]}, true
	}
	return compactionPlan{group: group, inputs: sorted, major: true}, true
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// maybeCompact runs the compactions the picker asks for, one at a time.
func (t *Tablet) maybeCompact() error {
	for {
		plan, ok := t.nextPlan()
		if !ok {
			return nil
		}
		if err := t.compact(plan); err != nil {
			return err
		}
	}
}

// Compact runs a major compaction of every locality group of the tablet
// (paper §5.4): afterwards each group has at most one SSTable, without
// deleted data or cells past their GC rule.
func (t *Tablet) Compact() error {
	if err := t.Flush(); err != nil {
		return err
	}
	t.mu.Lock()
	groups := make([]string, 0, len(t.vers.groups))
	for g := range t.vers.groups {
		groups = append(groups, g)
	}
	t.mu.Unlock()
	slices.Sort(groups)
	for _, g := range groups {
		t.mu.Lock()
		files := slices.Clone(t.vers.groups[g])
		t.mu.Unlock()
		if len(files) == 0 {
			continue
		}
		if err := t.compact(compactionPlan{group: g, inputs: files, major: true}); err != nil {
			return err
		}
	}
	return nil
}

// nextPlan returns the compaction the picker asks for, if any.
func (t *Tablet) nextPlan() (compactionPlan, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.vers == nil || t.closed || t.paused { // being split or merged, or retired
		return compactionPlan{}, false
	}
	for _, g := range sortedKeys(t.vers.groups) {
		if plan, ok := pickCompaction(g, t.vers.groups[g], t.h.opts.MaxFilesPerGroup); ok {
			return plan, true
		}
	}
	return compactionPlan{}, false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// compact merges the plan's input files into one, and installs it.
// Compactions of one tablet run one at a time.
func (t *Tablet) compact(plan compactionPlan) error {
	if !t.claimCompaction() {
		return nil
	}
	defer t.releaseCompaction()
	if !t.stillCurrent(plan) {
		return nil
	}
	return t.rewrite(plan)
}

// rewrite merges the plan's input files into new ones holding only the
// tablet's rows, installs them and persists the manifest. The caller holds
// the compaction slot or has quiesced the tablet.
func (t *Tablet) rewrite(plan compactionPlan) error {
	snap := &snapshot{seq: base.MaxSeq, vers: newVersion(map[string][]*fileMeta{plan.group: plan.inputs}), schema: t.Schema()}
	defer snap.release()
	its, err := t.fileIters(snap, t.lower, t.upper, nil, true)
	if err != nil {
		return err
	}
	var src base.Iterator = newMergingIter(its)
	st := t.rowState(snap)
	if plan.major {
		src = newMajorIter(src, t.lower, t.upper, st)
	}
	only := []string{plan.group}
	route := func(*base.Key) []string { return only }
	expected := 0
	for _, f := range plan.inputs {
		if r, err := t.h.reader(f); err == nil {
			expected += int(r.Properties().FilterPrefixes)
		}
	}
	files, err := t.h.writeTables(src, snap.schema, []string{plan.group}, route, expected)
	if err != nil {
		return fmt.Errorf("tablet: compaction of %v: %w", t, err)
	}
	t.mu.Lock()
	t.installLocked(plan.inputs, files)
	t.mu.Unlock()
	if hook := t.h.opts.TestingKnobs.OnMajorCompaction; hook != nil && plan.major {
		hook(t, plan.group, st.now)
	}
	return t.h.persist()
}

func (t *Tablet) claimCompaction() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.compacting && !t.closed && !t.paused {
		t.cond.Wait()
	}
	if t.closed || t.paused {
		return false
	}
	t.compacting = true
	return true
}

func (t *Tablet) releaseCompaction() {
	t.mu.Lock()
	t.compacting = false
	t.cond.Broadcast()
	t.mu.Unlock()
}

// stillCurrent reports whether every input of the plan is still in the
// tablet's version.
func (t *Tablet) stillCurrent(plan compactionPlan) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range plan.inputs {
		if !slices.Contains(t.vers.groups[plan.group], f) {
			return false
		}
	}
	return true
}

// Flush freezes the memtable and writes every frozen memtable to SSTables.
func (t *Tablet) Flush() error {
	t.mu.Lock()
	if t.err != nil {
		err := t.err
		t.mu.Unlock()
		return err
	}
	if t.mem.reserved > 0 {
		t.imm = append(t.imm, t.mem)
		t.mem = t.newMemTable(0, t.h.log.Head())
	}
	t.mu.Unlock()
	if err := t.h.flushTablet(t); err != nil {
		return err
	}
	// A flush may leave the tablet with too many files or past the split
	// size, as a background one may.
	t.h.scheduleCompaction(t)
	return nil
}

// majorIter turns a merged entry stream into the visible cells of each
// row, as puts that keep their sequence numbers: deletes, deleted data and
// cells past their GC rule are gone, and aggregate inputs are folded.
type majorIter struct {
	rows  *rowIter
	row   []byte
	cells []cell
	i     int
	key   []byte
	err   error
}

func newMajorIter(src base.Iterator, lower, upper []byte, st rowState) *majorIter {
	return &majorIter{rows: newRowIter(src, lower, upper, false, st)}
}

var errMajorIterOnlyForward = errors.New("tablet: major compaction iterator only moves forward")

func (m *majorIter) First() bool { return m.Next() }

func (m *majorIter) Next() bool {
	for m.i >= len(m.cells) {
		row, cells, ok := m.rows.next()
		if !ok {
			m.err = m.rows.err
			return false
		}
		m.row, m.cells, m.i = row, cells, 0
	}
	c := &m.cells[m.i]
	m.i++
	k := base.Key{Row: m.row, Family: c.Family, Qualifier: c.Qualifier, Timestamp: c.Timestamp, Seq: c.seq, Kind: base.KindPut}
	m.key = base.AppendEncoded(m.key[:0], &k)
	return true
}

func (m *majorIter) Key() []byte   { return m.key }
func (m *majorIter) Value() []byte { return m.cells[m.i-1].Value }
func (m *majorIter) Error() error  { return m.err }
func (m *majorIter) Close() error  { return errors.Join(m.err, m.rows.close()) }
func (m *majorIter) SeekGE([]byte) bool {
	m.err = errMajorIterOnlyForward
	return false
}
func (m *majorIter) SeekLT([]byte) bool { return m.SeekGE(nil) }
func (m *majorIter) Last() bool         { return m.SeekGE(nil) }
func (m *majorIter) Prev() bool         { return m.SeekGE(nil) }
