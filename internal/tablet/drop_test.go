package tablet

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

func dropRows(t *testing.T, h *Host) []string {
	t.Helper()
	var rows []string
	if err := h.Scan("t", ScanOptions{}, func(r base.Row) bool { rows = append(rows, string(r.Key)); return true }); err != nil {
		t.Fatal(err)
	}
	return rows
}

func writeDropRows(t *testing.T, h *Host, rows ...string) {
	t.Helper()
	for _, r := range rows {
		putCell(t, h, r, "a", r)
	}
}

// DropRowRange deletes the rows of a range, of a prefix or of the whole
// table; the rows stay gone through a restart and a major compaction, rows
// outside the range stay, and new writes show.
func TestDropRowRange(t *testing.T) {
	cases := []struct {
		name       string
		start, end []byte
		want       []string
	}{
		{"whole table", nil, nil, nil},
		{"range across tablets", []byte("b1"), []byte("d"), []string{"a0", "a1", "b0", "d0", "d1", "e0"}},
		{"prefix", []byte("c"), base.PrefixEnd([]byte("c")), []string{"a0", "a1", "b0", "b1", "b2", "d0", "d1", "e0"}},
		{"to the end", []byte("c1"), nil, []string{"a0", "a1", "b0", "b1", "b2", "c0"}},
		{"from the start", nil, []byte("c"), []string{"c0", "c1", "d0", "d1", "e0"}},
	}
	all := []string{"a0", "a1", "b0", "b1", "b2", "c0", "c1", "d0", "d1", "e0"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{FS: vfs.NewMem(), Dir: "db", Seed: 1, RowCacheSize: 1 << 20, TestingKnobs: TestingKnobs{DisableBackground: true}}
			h, err := Open(opts)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { h.Close() }()
			if err := h.CreateTable("t", &Schema{Families: map[string]Family{"a": {}}}, [][]byte{[]byte("b"), []byte("d")}); err != nil {
				t.Fatal(err)
			}
			writeDropRows(t, h, all[:5]...)
			for _, tb := range tabletsOf(t, h) {
				if err := tb.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			// Children of a split share their parent's files.
			tb, _ := h.TabletFor("t", []byte("b1"))
			if err := h.Split(tb.ID(), []byte("b1")); err != nil {
				t.Fatal(err)
			}
			writeDropRows(t, h, all[5:]...) // in memtables
			putCell(t, h, "b1", "a", "twice")
			if err := h.DropRowRange("t", tc.start, tc.end); err != nil {
				t.Fatal(err)
			}
			check := func(when string, want []string) {
				t.Helper()
				if got := dropRows(t, h); !slices.Equal(got, want) {
					t.Fatalf("%s: rows %q, want %q", when, got, want)
				}
				for _, r := range all {
					got, err := h.ReadRow("t", []byte(r))
					if err != nil || (len(got.Cells) > 0) != slices.Contains(want, r) {
						t.Fatalf("%s: read %s: %+v, %v", when, r, got.Cells, err)
					}
				}
			}
			check("after the drop", tc.want)
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			if h, err = Open(opts); err != nil {
				t.Fatal(err)
			}
			check("after a restart", tc.want)
			for _, tb := range tabletsOf(t, h) {
				if err := tb.Compact(); err != nil {
					t.Fatal(err)
				}
			}
			check("after a major compaction", tc.want)
			writeDropRows(t, h, "b1")
			want := slices.Sorted(slices.Values(append(slices.Clone(tc.want), "b1")))
			want = slices.Compact(want)
			check("after a new write", want)
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			if h, err = Open(opts); err != nil {
				t.Fatal(err)
			}
			check("after a new write and a restart", want)
		})
	}
}

func tabletsOf(t *testing.T, h *Host) []*Tablet {
	t.Helper()
	ts, err := h.Tablets("t")
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestDropRowRangeErrors(t *testing.T) {
	h, err := Open(Options{FS: vfs.NewMem(), Dir: "db", Seed: 1, TestingKnobs: TestingKnobs{DisableBackground: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.DropRowRange("t", nil, nil); !errors.Is(err, base.ErrNotFound) {
		t.Fatalf("drop in an unknown table: %v", err)
	}
	if err := h.CreateTable("t", &Schema{Families: map[string]Family{"a": {}}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.DropRowRange("t", []byte("b"), []byte("a")); !errors.Is(err, base.ErrInvalidArgument) {
		t.Fatalf("drop of a reversed range: %v", err)
	}
	if err := h.DropRowRange("t", []byte("b"), []byte("b")); err != nil {
		t.Fatalf("drop of an empty range: %v", err)
	}
}

// dropOp is one step of the drop crash workload: a write of a row, or a
// drop of a row range.
type dropOp struct {
	row        string
	drop       bool
	start, end []byte
}

func (o dropOp) covers(row string) bool {
	return bytes.Compare([]byte(row), o.start) >= 0 && (o.end == nil || bytes.Compare([]byte(row), o.end) < 0)
}

// DESIGN §3: an acknowledged DropRowRange is durable. Crash at every sync
// of a workload of writes and drops (whole table, ranges within and across
// tablets) with background flushes and compactions; after recovery every
// row is as the acknowledged operations left it, except those the one
// operation in flight touches.
func TestDropRowRangeCrashAtEverySync(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 5))
	var ops []dropOp
	for i := range 300 {
		if i%40 == 39 {
			switch k := rng.IntN(4); k {
			case 0:
				ops = append(ops, dropOp{drop: true})
			default:
				a, b := rng.IntN(60), rng.IntN(60)
				a, b = min(a, b), max(a, b)+1
				ops = append(ops, dropOp{drop: true, start: fmt.Appendf(nil, "r%02d", a), end: fmt.Appendf(nil, "r%02d", b)})
			}
			continue
		}
		ops = append(ops, dropOp{row: fmt.Sprintf("r%02d", rng.IntN(60))})
	}
	mem := vfs.NewMem()
	var (
		mu     sync.Mutex
		acked  int
		points []struct {
			fs    *vfs.MemFS
			acked int
		}
	)
	modes := []vfs.UnsyncedMode{vfs.DropUnsynced, vfs.KeepSomeUnsynced, vfs.KeepAllUnsynced}
	crash := func(string) {
		mu.Lock()
		defer mu.Unlock()
		clone := mem.CrashClone(vfs.CrashCloneOptions{UnsyncedData: modes[len(points)%3], Rand: rand.New(rand.NewPCG(seed, uint64(len(points))))})
		points = append(points, struct {
			fs    *vfs.MemFS
			acked int
		}{clone, acked})
	}
	opts := Options{FS: mem, Dir: "db", MemtableSize: 4 << 10, MaxFilesPerGroup: 2, LogSegmentSize: 16 << 10, Seed: seed}
	h, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.CreateTable("t", &Schema{Families: map[string]Family{"a": {}}}, [][]byte{[]byte("r20"), []byte("r40")}); err != nil {
		t.Fatal(err)
	}
	mem.SetHooks(vfs.Hooks{BeforeSync: crash, AfterSync: crash})
	for _, op := range ops {
		if op.drop {
			err = h.DropRowRange("t", op.start, op.end)
		} else {
			err = h.Apply("t", []byte(op.row), []base.Mutation{{Kind: base.KindPut, Family: "a", Qualifier: []byte("q"), Timestamp: 1000, Value: []byte(op.row)}})
		}
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		acked++
		mu.Unlock()
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	mem.SetHooks(vfs.Hooks{})
	bad := 0
	for i, p := range points {
		present := map[string]bool{}
		ho, err := Open(Options{FS: p.fs, Dir: "db", Seed: seed, TestingKnobs: TestingKnobs{DisableBackground: true}})
		if err != nil {
			t.Fatalf("open after crash %d: %v", i, err)
		}
		for _, r := range dropRows(t, ho) {
			present[r] = true
		}
		ho.Close()
		want := map[string]bool{}
		for _, op := range ops[:p.acked] {
			if !op.drop {
				want[op.row] = true
				continue
			}
			for r := range want {
				if op.covers(r) {
					delete(want, r)
				}
			}
		}
		for n := range 60 {
			r := fmt.Sprintf("r%02d", n)
			if p.acked < len(ops) {
				if op := ops[p.acked]; (op.drop && op.covers(r)) || op.row == r {
					continue // in flight: either way
				}
			}
			if present[r] != want[r] {
				bad++
				t.Errorf("crash point %d after %d ops: row %s present %v, want %v", i, p.acked, r, present[r], want[r])
			}
		}
	}
	t.Logf("%d crash points, %d rows wrong", len(points), bad)
}
