package tablet

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabuladb/tabula/internal/aggregate"
	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/compress"
	"github.com/tabuladb/tabula/internal/gcrule"
	"github.com/tabuladb/tabula/internal/vfs"
)

var (
	seedFlag = flag.Uint64("seed", 0, "seed for randomized tests (0 = from the clock)")
	opsFlag  = flag.Int("ops", 4000, "operations per randomized test run")
)

func testSeed(t testing.TB) uint64 {
	s := *seedFlag
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -seed %d)", s, s)
	return s
}

// fakeClock is a clock that moves only when told to.
type fakeClock struct{ us int64 }

func (c *fakeClock) now() time.Time { return time.UnixMicro(c.us) }
func (c *fakeClock) ms() int64      { return c.us / 1000 * 1000 }

func testSchema() *Schema {
	return &Schema{
		Families: map[string]Family{
			"a": {GC: gcrule.MaxVersions(2)},
			"b": {GC: gcrule.Union(gcrule.MaxAge(5*time.Millisecond), gcrule.MaxVersions(3)), Group: "g2"},
			"c": {Group: "mem"},
			"s": {Aggregate: aggregate.Sum},
			"x": {Aggregate: aggregate.Max, GC: gcrule.Intersection(gcrule.MaxVersions(1), gcrule.MaxAge(2*time.Millisecond)), Group: "g2"},
		},
		Groups: map[string]GroupOptions{
			"g2":  {Compression: compress.Snappy, BlockSize: 512},
			"mem": {InMemory: true, Compression: compress.Zstd},
		},
	}
}

var (
	testRows       = makeTestRows()
	testQualifiers = [][]byte{nil, []byte("q1"), []byte("q2"), []byte("q\x00z")}
	testFamilies   = []string{"a", "b", "c", "s", "x"}
)

func makeTestRows() [][]byte {
	var rows [][]byte
	for i := range 36 {
		rows = append(rows, fmt.Appendf(nil, "r%02d", i))
	}
	return append(rows, []byte("r1\x00x"), []byte("r1\xff"), []byte("\x00"), []byte("\xff\xff"))
}

// harness drives a host and the model with the same operations.
type harness struct {
	t     *testing.T
	rng   *rand.Rand
	clock *fakeClock
	opts  Options
	h     *Host
	m     *model
	ops   map[string]int
}

func newHarness(t *testing.T, fsys vfs.FS, seed uint64) *harness {
	hs := &harness{t: t, rng: rand.New(rand.NewPCG(seed, 1)), clock: &fakeClock{us: 1_000_000_000_000}, m: newModel(), ops: map[string]int{}}
	hs.opts = Options{FS: fsys, Dir: "db", MemtableSize: 16 << 10, MaxFrozenMemtables: 1 << 20, MaxFilesPerGroup: 3,
		Clock: hs.clock.now, Seed: seed, LogSegmentSize: 64 << 10, SplitSize: 4 << 10,
		TestingKnobs: TestingKnobs{DisableBackground: true, OnMajorCompaction: hs.onMajor}}
	if seed%2 == 0 {
		hs.opts.RowCacheSize = 256 << 10
	}
	t.Logf("row cache %d bytes", hs.opts.RowCacheSize)
	hs.open()
	return hs
}

func (hs *harness) open() {
	h, err := Open(hs.opts)
	if err != nil {
		hs.t.Fatalf("open: %v", err)
	}
	hs.h = h
}

func (hs *harness) onMajor(t *Tablet, group string, now int64) {
	s := t.Schema()
	hs.m.gc(s, t.start, t.end, func(f string) bool { return s.GroupOf(f) == group }, now)
}

func (hs *harness) schema() *Schema {
	s, err := hs.h.TableSchema("t")
	if err != nil {
		hs.t.Fatal(err)
	}
	return s
}

func (hs *harness) pick(n int) int { return hs.rng.IntN(n) }

func (hs *harness) randTS() int64 {
	if hs.pick(5) == 0 {
		return base.ServerTimestamp
	}
	return hs.clock.ms() - int64(hs.pick(8))*1000
}

func (hs *harness) randMutation() base.Mutation {
	fam := testFamilies[hs.pick(len(testFamilies))]
	q := testQualifiers[hs.pick(len(testQualifiers))]
	switch r := hs.pick(20); {
	case r == 0:
		return base.Mutation{Kind: base.KindDeleteRow}
	case r == 1:
		return base.Mutation{Kind: base.KindDeleteFamily, Family: fam}
	case r <= 3:
		start := hs.clock.ms() - int64(hs.pick(8))*1000
		rg := base.TimeRange{Start: start, End: start + int64(1+hs.pick(4))*1000}
		if r == 3 {
			rg = base.AllTime
		}
		return base.Mutation{Kind: base.KindDeleteCells, Family: fam, Qualifier: q, Range: rg}
	}
	if fam == "s" || fam == "x" {
		v := binary.BigEndian.AppendUint64(nil, uint64(hs.pick(100)-20))
		kind := base.KindAggAdd
		if hs.pick(3) == 0 {
			kind = base.KindAggMerge
		}
		return base.Mutation{Kind: kind, Family: fam, Qualifier: q, Timestamp: hs.randTS(), Value: v}
	}
	v := fmt.Appendf(nil, "v%d", hs.pick(1000))
	if hs.pick(20) == 0 {
		v = bytes.Repeat(v, 300)
	}
	return base.Mutation{Kind: base.KindPut, Family: fam, Qualifier: q, Timestamp: hs.randTS(), Value: v}
}

func (hs *harness) apply() {
	if hs.pick(4) == 0 {
		hs.applyBatch()
		return
	}
	row := testRows[hs.pick(len(testRows))]
	muts := make([]base.Mutation, 1+hs.pick(4))
	for i := range muts {
		muts[i] = hs.randMutation()
	}
	if err := hs.h.Apply("t", row, muts); err != nil {
		hs.t.Fatalf("apply %q %+v: %v", row, muts, err)
	}
	hs.m.apply(hs.schema(), row, muts, hs.clock.ms())
}

// applyBatch applies several entries, rows possibly repeated and spread
// over tablets, with one ApplyBatch; the model applies them in order.
func (hs *harness) applyBatch() {
	batch := make([]RowMutation, 1+hs.pick(8))
	for i := range batch {
		batch[i].Row = testRows[hs.pick(len(testRows))]
		batch[i].Mutations = make([]base.Mutation, 1+hs.pick(3))
		for k := range batch[i].Mutations {
			batch[i].Mutations[k] = hs.randMutation()
		}
	}
	for i, err := range hs.h.ApplyBatch("t", batch) {
		if err != nil {
			hs.t.Fatalf("batch entry %d %q: %v", i, batch[i].Row, err)
		}
	}
	for _, e := range batch {
		hs.m.apply(hs.schema(), e.Row, e.Mutations, hs.clock.ms())
	}
}

func (hs *harness) readRow() {
	row := testRows[hs.pick(len(testRows))]
	got, err := hs.h.ReadRow("t", row)
	if err != nil {
		hs.t.Fatalf("read %q: %v", row, err)
	}
	want := hs.m.row(hs.schema(), string(row), hs.clock.us)
	if !sameCells(got.Cells, want) {
		hs.t.Fatalf("row %q:\n got %s\nwant %s", row, fmtCells(got.Cells), fmtCells(want))
	}
}

func (hs *harness) scan() {
	var start, end []byte
	if hs.pick(3) > 0 {
		start = testRows[hs.pick(len(testRows))]
	}
	if hs.pick(3) > 0 {
		end = testRows[hs.pick(len(testRows))]
	}
	if start != nil && hs.pick(4) == 0 {
		end = append(slices.Clip(start), 0) // one row, as a read by key
	}
	reverse := hs.pick(2) == 0
	limit := 1 + hs.pick(len(testRows))
	var got []base.Row
	err := hs.h.Scan("t", ScanOptions{Start: start, End: end, Reverse: reverse}, func(r base.Row) bool {
		got = append(got, r)
		return len(got) < limit
	})
	if err != nil {
		hs.t.Fatalf("scan: %v", err)
	}
	want := hs.m.scan(hs.schema(), start, end, reverse, hs.clock.us)
	if len(want) > limit {
		want = want[:limit]
	}
	if len(got) != len(want) {
		hs.t.Fatalf("scan [%q, %q) reverse=%v: %d rows, want %d\n got %s\nwant %s", start, end, reverse, len(got), len(want), fmtRows(got), fmtRows(want))
	}
	for i := range got {
		if !bytes.Equal(got[i].Key, want[i].Key) || !sameCells(got[i].Cells, want[i].Cells) {
			hs.t.Fatalf("scan [%q, %q) reverse=%v row %d:\n got %s\nwant %s", start, end, reverse, i, fmtRows(got[i:i+1]), fmtRows(want[i:i+1]))
		}
	}
}

func (hs *harness) randTablet() *Tablet {
	ts, err := hs.h.Tablets("t")
	if err != nil {
		hs.t.Fatal(err)
	}
	return ts[hs.pick(len(ts))]
}

func (hs *harness) split() {
	t := hs.randTablet()
	if hs.pick(2) == 0 {
		before, _ := hs.h.Tablets("t")
		hs.check(hs.h.maybeSplit(t)) // by size, at the middle of its data
		if after, _ := hs.h.Tablets("t"); len(after) > len(before) {
			hs.ops["split by size"]++
		}
		return
	}
	at := testRows[hs.pick(len(testRows))]
	if !t.Contains(at) || bytes.Equal(at, t.start) {
		return
	}
	if err := hs.h.Split(t.id, at); err != nil {
		hs.t.Fatalf("split %v at %q: %v", t, at, err)
	}
}

func (hs *harness) merge() {
	ts, _ := hs.h.Tablets("t")
	if len(ts) < 2 {
		return
	}
	i := hs.pick(len(ts) - 1)
	if err := hs.h.Merge(ts[i].id, ts[i+1].id); err != nil {
		hs.t.Fatalf("merge %v + %v: %v", ts[i], ts[i+1], err)
	}
}

// dropRange drops the rows of a random range, or now and then of the
// whole table.
func (hs *harness) dropRange() {
	var start, end []byte
	if hs.pick(8) > 0 {
		start, end = testRows[hs.pick(len(testRows))], testRows[hs.pick(len(testRows))]
		if bytes.Compare(start, end) > 0 {
			start, end = end, start
		}
		if hs.pick(4) == 0 {
			end = nil
		}
	}
	hs.check(hs.h.DropRowRange("t", start, end))
	for r := range hs.m.rows {
		if r >= string(start) && (end == nil || r < string(end)) {
			delete(hs.m.rows, r)
		}
	}
}

// recreateFamily drops a family and creates it again: it starts empty.
func (hs *harness) recreateFamily() {
	s := hs.schema()
	f := testFamilies[hs.pick(len(testFamilies))]
	without := s.Clone()
	delete(without.Families, f)
	hs.check(hs.h.SetSchema("t", without))
	hs.check(hs.h.SetSchema("t", s))
	hs.m.dropFamily(f)
}

func (hs *harness) reopen() {
	if err := hs.h.Close(); err != nil {
		hs.t.Fatalf("close: %v", err)
	}
	hs.open()
}

func (hs *harness) readModifyWrite() {
	row := testRows[hs.pick(len(testRows))]
	q := testQualifiers[hs.pick(len(testQualifiers))]
	rule := ModifyRule{Family: "c", Qualifier: q, Append: []byte("+")}
	schema := hs.schema()
	latest := hs.latest(schema, row, "c", q)
	if latest != nil && len(latest.Value) != 8 || hs.pick(2) == 0 {
		rule = ModifyRule{Family: "c", Qualifier: q, Append: []byte("+")}
	} else {
		rule = ModifyRule{Family: "c", Qualifier: q, IsIncrement: true, Increment: int64(hs.pick(10))}
	}
	got, err := hs.h.ReadModifyWrite("t", row, []ModifyRule{rule})
	if err != nil {
		hs.t.Fatalf("read-modify-write %q: %v", row, err)
	}
	want, err := modify(latest, rule, hs.clock.ms())
	if err != nil {
		hs.t.Fatal(err)
	}
	if !sameCells(got.Cells, []base.Cell{want}) {
		hs.t.Fatalf("read-modify-write %q: got %s want %s", row, fmtCells(got.Cells), fmtCells([]base.Cell{want}))
	}
	hs.m.apply(schema, row, []base.Mutation{{Kind: base.KindPut, Family: "c", Qualifier: q, Timestamp: want.Timestamp, Value: want.Value}}, 0)
}

func (hs *harness) latest(s *Schema, row []byte, fam string, q []byte) *base.Cell {
	for _, c := range hs.m.row(s, string(row), hs.clock.us) {
		if c.Family == fam && bytes.Equal(c.Qualifier, q) {
			return &c
		}
	}
	return nil
}

func (hs *harness) step() {
	var name string
	switch r := hs.pick(100); {
	case r < 45:
		name = "apply"
		hs.apply()
	case r < 58:
		name = "read"
		hs.readRow()
	case r < 70:
		name = "scan"
		hs.scan()
	case r < 76:
		name = "flush"
		hs.check(hs.randTablet().Flush())
	case r < 80:
		name = "compact"
		t := hs.randTablet()
		hs.check(t.Flush())
		hs.check(t.maybeCompact())
	case r < 82:
		name = "major"
		hs.check(hs.randTablet().Compact())
	case r < 85:
		name = "split"
		hs.split()
	case r < 87:
		name = "merge"
		hs.merge()
	case r < 89:
		name = "reopen"
		hs.reopen()
	case r < 93:
		name = "clock"
		hs.clock.us += int64(hs.pick(3000))
	case r < 94:
		name = "droprange"
		hs.dropRange()
	case r < 95:
		name = "refamily"
		hs.recreateFamily()
	default:
		name = "rmw"
		hs.readModifyWrite()
	}
	hs.ops[name]++
}

func (hs *harness) check(err error) {
	if err != nil {
		hs.t.Helper()
		hs.t.Fatal(err)
	}
}

// The engine, through flushes, compactions, splits, merges and reopens,
// returns exactly what a plain sorted map returns (DESIGN §6).
func TestDifferential(t *testing.T) {
	seed := testSeed(t)
	hs := newHarness(t, vfs.NewMem(), seed)
	if err := hs.h.CreateTable("t", testSchema(), [][]byte{[]byte("r10"), []byte("r20")}); err != nil {
		t.Fatal(err)
	}
	for range *opsFlag {
		hs.step()
	}
	ts, _ := hs.h.Tablets("t")
	t.Logf("ops %v; %d tablets at the end", hs.ops, len(ts))
	hs.check(hs.h.Close())
}

func sameCells(a, b []base.Cell) bool {
	return slices.EqualFunc(a, b, func(x, y base.Cell) bool {
		return x.Family == y.Family && bytes.Equal(x.Qualifier, y.Qualifier) && x.Timestamp == y.Timestamp && bytes.Equal(x.Value, y.Value)
	})
}

func fmtCells(cs []base.Cell) string {
	var b strings.Builder
	for _, c := range cs {
		v := c.Value
		if len(v) > 12 {
			v = append(v[:12:12], "…"...)
		}
		fmt.Fprintf(&b, "[%s:%q@%d=%q] ", c.Family, c.Qualifier, c.Timestamp, v)
	}
	return b.String()
}

func fmtRows(rs []base.Row) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "\n  %q: %s", r.Key, fmtCells(r.Cells))
	}
	return b.String()
}
