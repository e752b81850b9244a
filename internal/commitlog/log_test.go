package commitlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/tabuladb/tabula/internal/vfs"

	"github.com/tabuladb/tabula/internal/base"
)

type entry struct {
	pos Pos
	rec string
}

func openLog(t testing.TB, opts Options) *Log {
	t.Helper()
	if opts.FS == nil {
		opts.FS = vfs.NewOS()
	}
	l, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return l
}

func replayAll(t testing.TB, l *Log, from Pos) []entry {
	t.Helper()
	var got []entry
	err := l.Replay(from, func(pos Pos, rec []byte) error {
		got = append(got, entry{pos, string(rec)})
		return nil
	})
	if err != nil {
		t.Fatalf("Replay(%v): %v", from, err)
	}
	return got
}

func appendAll(t testing.TB, l *Log, recs ...string) []entry {
	t.Helper()
	var out []entry
	for _, r := range recs {
		pos, err := l.Append([]byte(r))
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		out = append(out, entry{pos, r})
	}
	return out
}

func records(n int, prefix string) []string {
	recs := make([]string, n)
	for i := range recs {
		recs[i] = fmt.Sprintf("%s-%d-%s", prefix, i, string(make([]byte, i%17)))
	}
	return recs
}

func checkEntries(t *testing.T, got, want []entry) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("got %d entries, want %d\ngot  %v\nwant %v", len(got), len(want), got, want)
	}
}

// Paper §5.3: every tablet's mutations go to the shared log; group commit
// batches concurrent writers, and replay returns them in log order.
func TestConcurrentRoundTrip(t *testing.T) { forEachFS(t, testConcurrentRoundTrip) }

func testConcurrentRoundTrip(t *testing.T, fs vfs.FS) {
	l := openLog(t, Options{FS: fs, Dir: t.TempDir()})
	const writers, each = 8, 200
	results := make([][]entry, writers)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				rec := fmt.Sprintf("w%d-%d", g, i)
				p, err := l.Write([]byte(rec))
				if err != nil {
					t.Errorf("Write: %v", err)
					return
				}
				if i%3 == 0 {
					if err := p.Wait(); err != nil {
						t.Errorf("Wait: %v", err)
						return
					}
				}
				results[g] = append(results[g], entry{p.Pos(), rec})
			}
		})
	}
	wg.Wait()
	var want []entry
	for _, r := range results {
		for i := 1; i < len(r); i++ {
			if !r[i-1].pos.Less(r[i].pos) {
				t.Fatalf("positions out of call order: %v then %v", r[i-1].pos, r[i].pos)
			}
		}
		want = append(want, r...)
	}
	if _, err := l.Append([]byte("last")); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(want, func(a, b entry) int { return a.pos.compare(b.pos) })
	got := replayAll(t, l, Pos{})
	checkEntries(t, got[:len(got)-1], want)
	if h := l.Head(); !got[len(got)-1].pos.Less(h) {
		t.Fatalf("Head %v not after last record %v", h, got[len(got)-1].pos)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func (p Pos) compare(q Pos) int {
	switch {
	case p.Less(q):
		return -1
	case q.Less(p):
		return 1
	}
	return 0
}

func TestReplayFrom(t *testing.T) {
	for _, segSize := range []int64{0, 150} {
		t.Run(fmt.Sprint(segSize), func(t *testing.T) {
			l := openLog(t, Options{Dir: t.TempDir(), SegmentSize: segSize})
			defer l.Close()
			want := appendAll(t, l, records(40, "r")...)
			checkEntries(t, replayAll(t, l, Pos{}), want)
			for i, e := range want {
				checkEntries(t, replayAll(t, l, e.pos), want[i:])
				after := Pos{e.pos.Segment, e.pos.Offset + 1}
				checkEntries(t, replayAll(t, l, after), want[i+1:])
			}
			checkEntries(t, replayAll(t, l, l.Head()), nil)
		})
	}
}

func TestReplayStopsOnError(t *testing.T) {
	l := openLog(t, Options{Dir: t.TempDir()})
	defer l.Close()
	appendAll(t, l, records(5, "r")...)
	stop := errors.New("stop")
	n := 0
	err := l.Replay(Pos{}, func(Pos, []byte) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 {
		t.Fatalf("Replay = %v after %d records, want stop after 3", err, n)
	}
}

func TestRollover(t *testing.T) { forEachFS(t, testRollover) }

func testRollover(t *testing.T, fs vfs.FS) {
	dir := t.TempDir()
	const segSize = 120
	l := openLog(t, Options{FS: fs, Dir: dir, SegmentSize: segSize})
	recs := records(200, "roll")
	recs[50] = string(make([]byte, 500)) // larger than a segment: alone in one
	var pending []*Pending
	for _, r := range recs {
		p, err := l.Write([]byte(r))
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, p)
	}
	var want []entry
	for i, p := range pending {
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		want = append(want, entry{p.Pos(), recs[i]})
	}
	checkEntries(t, replayAll(t, l, Pos{}), want)
	segs, err := listSegments(vfs.NewOS(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 20 {
		t.Fatalf("%d segments, want many", len(segs))
	}
	for _, seg := range segs {
		st, err := os.Stat(filepath.Join(dir, segmentName(seg)))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > segSize && st.Size() != headerLen+frameHeaderLen+500 {
			t.Errorf("segment %d has %d bytes, over %d", seg, st.Size(), segSize)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestRelease(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, Options{Dir: dir, SegmentSize: 100})
	defer l.Close()
	want := appendAll(t, l, records(60, "rel")...)
	cut := want[30]
	if err := l.Release(cut.pos); err != nil {
		t.Fatal(err)
	}
	segs, _ := listSegments(vfs.NewOS(), dir)
	if segs[0] != cut.pos.Segment {
		t.Fatalf("first segment %d after Release(%v)", segs[0], cut.pos)
	}
	var rest []entry
	for _, e := range want {
		if e.pos.Segment >= cut.pos.Segment {
			rest = append(rest, e)
		}
	}
	checkEntries(t, replayAll(t, l, Pos{}), rest)

	// Releasing everything keeps the segment being written.
	if err := l.Release(Pos{Segment: 1 << 60}); err != nil {
		t.Fatal(err)
	}
	segs, _ = listSegments(vfs.NewOS(), dir)
	if len(segs) != 1 || segs[0] != l.Head().Segment {
		t.Fatalf("segments %v after releasing all, head %v", segs, l.Head())
	}
	more := appendAll(t, l, "after")
	checkEntries(t, replayAll(t, l, Pos{}), append(filterSeg(rest, segs[0]), more...))
}

func filterSeg(es []entry, seg uint64) []entry {
	var out []entry
	for _, e := range es {
		if e.pos.Segment >= seg {
			out = append(out, e)
		}
	}
	return out
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, Options{Dir: dir})
	want := appendAll(t, l, records(10, "a")...)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = openLog(t, Options{Dir: dir})
	if h := l.Head(); h != (Pos{Segment: 2, Offset: headerLen}) {
		t.Fatalf("Head after reopen = %v, want a new segment 2", h)
	}
	checkEntries(t, replayAll(t, l, Pos{}), want)
	want = append(want, appendAll(t, l, records(10, "b")...)...)
	if want[10].pos.Segment != 2 {
		t.Fatalf("first write after reopen at %v", want[10].pos)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = openLog(t, Options{Dir: dir})
	defer l.Close()
	checkEntries(t, replayAll(t, l, Pos{}), want)
	checkEntries(t, replayAll(t, l, want[10].pos), want[10:])
}

func TestClose(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, Options{Dir: dir})
	var pending []*Pending
	for _, r := range records(100, "c") {
		p, err := l.Write([]byte(r))
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, p)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range pending {
		if err := p.Wait(); err != nil {
			t.Fatalf("Wait after Close: %v", err)
		}
	}
	if _, err := l.Write([]byte("x")); !errors.Is(err, base.ErrClosed) {
		t.Fatalf("Write after Close = %v", err)
	}
	if _, err := l.Append([]byte("x")); !errors.Is(err, base.ErrClosed) {
		t.Fatalf("Append after Close = %v", err)
	}
	if err := l.Close(); !errors.Is(err, base.ErrClosed) {
		t.Fatalf("second Close = %v", err)
	}
	if err := l.Release(Pos{}); !errors.Is(err, base.ErrClosed) {
		t.Fatalf("Release after Close = %v", err)
	}
	l = openLog(t, Options{Dir: dir})
	defer l.Close()
	if got := replayAll(t, l, Pos{}); len(got) != 100 {
		t.Fatalf("replayed %d records after Close, want 100", len(got))
	}
}

func TestRecordLimits(t *testing.T) {
	l := openLog(t, Options{Dir: t.TempDir()})
	defer l.Close()
	if _, err := l.Write(make([]byte, MaxRecordSize+1)); !errors.Is(err, base.ErrInvalidArgument) {
		t.Fatalf("oversize Write = %v", err)
	}
	want := appendAll(t, l, "", "x", "")
	checkEntries(t, replayAll(t, l, Pos{}), want)
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{{Dir: "d"}, {FS: vfs.NewOS()}, {FS: vfs.NewOS(), Dir: "d", SegmentSize: -1}} {
		if _, err := Open(o); !errors.Is(err, base.ErrInvalidArgument) {
			t.Errorf("Open(%+v) = %v", o, err)
		}
	}
}

func TestPos(t *testing.T) {
	ps := []Pos{{}, {1, 0}, {1, 24}, {1, 25}, {2, 0}, {2, 24}}
	for i := range ps {
		for j := range ps {
			if got := ps[i].Less(ps[j]); got != (i < j) {
				t.Errorf("%v.Less(%v) = %v", ps[i], ps[j], got)
			}
		}
	}
	if s := (Pos{3, 48}).String(); s != "3/48" {
		t.Errorf("String = %q", s)
	}
}
