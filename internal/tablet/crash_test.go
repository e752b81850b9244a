package tablet

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/gcrule"
	"github.com/tabuladb/tabula/internal/vfs"
)

// crashPoint is a crash clone of the file system taken at a sync, with the
// writes and deletes acknowledged before it.
type crashPoint struct {
	fs      *vfs.MemFS
	mode    vfs.UnsyncedMode
	written []string
	deleted []string
	issued  []string // deletes sent before the clone, acknowledged or not
}

// ackLog records acknowledged writes and deletes in order.
type ackLog struct {
	mu      sync.Mutex
	written []string
	deleted []string
	issued  []string
}

func (a *ackLog) issue(row string) {
	a.mu.Lock()
	a.issued = append(a.issued, row)
	a.mu.Unlock()
}

func (a *ackLog) issuedDeletes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.issued...)
}

func (a *ackLog) write(row string) {
	a.mu.Lock()
	a.written = append(a.written, row)
	a.mu.Unlock()
}

func (a *ackLog) delete(row string) {
	a.mu.Lock()
	a.deleted = append(a.deleted, row)
	a.mu.Unlock()
}

func (a *ackLog) snapshot() (written, deleted []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.written...), append([]string(nil), a.deleted...)
}

func crashSchema() *Schema {
	s := testSchema()
	for _, f := range []string{"s", "x"} {
		delete(s.Families, f)
	}
	// Cells carry fixed old timestamps; an age rule would hide them.
	s.Families["b"] = Family{GC: gcrule.MaxVersions(3), Group: "g2"}
	return s
}

// crashRow is the row mutation every writer sends: a cell in each of three
// locality groups, so a half-applied row shows.
func crashRow(row string) []base.Mutation {
	var muts []base.Mutation
	for _, f := range []string{"a", "b", "c"} {
		muts = append(muts, base.Mutation{Kind: base.KindPut, Family: f, Qualifier: []byte("q"), Timestamp: 1000, Value: []byte(row)})
	}
	return muts
}

// Paper §5.3 and DESIGN §3: crash at every sync point of writes, flushes,
// compactions and splits, keeping none, some or all unsynced data; after
// recovery no acknowledged write is lost, no row is half-applied and no
// acknowledged delete is undone.
func TestCrashAtEverySync(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 2))
	mem := vfs.NewMem()
	acks := &ackLog{}
	var (
		pointsMu sync.Mutex
		points   []crashPoint
	)
	modes := []vfs.UnsyncedMode{vfs.DropUnsynced, vfs.KeepSomeUnsynced, vfs.KeepAllUnsynced}
	cloneRng := rand.New(rand.NewPCG(seed, 3))
	crash := func(string) {
		pointsMu.Lock()
		defer pointsMu.Unlock()
		w, d := acks.snapshot()
		mode := modes[len(points)%len(modes)]
		clone := mem.CrashClone(vfs.CrashCloneOptions{UnsyncedData: mode, Rand: rand.New(rand.NewPCG(cloneRng.Uint64(), 0))})
		points = append(points, crashPoint{fs: clone, mode: mode, written: w, deleted: d, issued: acks.issuedDeletes()})
	}
	// A crash just before a sync and just after it, at every sync of the
	// log, of SSTables, of the manifest and of directories.
	mem.SetHooks(vfs.Hooks{BeforeSync: crash, AfterSync: crash})

	opts := Options{FS: mem, Dir: "db", MemtableSize: 8 << 10, MaxFilesPerGroup: 2, LogSegmentSize: 16 << 10, Seed: seed}
	h, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.CreateTable("t", crashSchema(), [][]byte{[]byte("w2")}); err != nil {
		t.Fatal(err)
	}
	runCrashWorkload(t, h, acks, rng)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	mem.SetHooks(vfs.Hooks{})

	pointsMu.Lock()
	defer pointsMu.Unlock()
	var lost, half, resurrected int
	for i, p := range points {
		l, hf, r := verifyCrashPoint(t, p, opts)
		if l+hf+r > 0 {
			t.Errorf("crash point %d (%v): lost %d, half-applied %d, resurrected %d", i, p.mode, l, hf, r)
		}
		lost, half, resurrected = lost+l, half+hf, resurrected+r
	}
	t.Logf("%d crash points: acknowledged writes lost = %d, rows half-applied = %d, resurrected deletes = %d", len(points), lost, half, resurrected)
}

// runCrashWorkload writes from several goroutines while another flushes,
// compacts and splits.
func runCrashWorkload(t *testing.T, h *Host, acks *ackLog, rng *rand.Rand) {
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 150 {
				row := fmt.Sprintf("w%d-%04d", w, i)
				if err := h.Apply("t", []byte(row), crashRow(row)); err != nil {
					t.Errorf("apply %s: %v", row, err)
					return
				}
				acks.write(row)
				if i%10 == 9 {
					victim := fmt.Sprintf("w%d-%04d", w, i-5)
					acks.issue(victim)
					if err := h.Apply("t", []byte(victim), []base.Mutation{{Kind: base.KindDeleteRow}}); err != nil {
						t.Errorf("delete %s: %v", victim, err)
						return
					}
					acks.delete(victim)
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		splits := []string{"w1", "w3", "w0-01", "w1-05", "w3-1"}
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			ts, _ := h.Tablets("t")
			tb := ts[rng.IntN(len(ts))]
			switch i % 4 {
			case 0:
				tb.Flush()
			case 1:
				tb.Compact()
			case 2:
				if at := []byte(splits[rng.IntN(len(splits))]); tb.Contains(at) && string(at) != string(tb.start) {
					h.Split(tb.id, at)
				}
			case 3:
				if len(ts) > 3 {
					h.Merge(ts[0].id, ts[1].id)
				}
			}
		}
	}()
	wg.Wait()
	done <- struct{}{}
	<-done
}

func verifyCrashPoint(t *testing.T, p crashPoint, opts Options) (lost, half, resurrected int) {
	opts.FS = p.fs
	h, err := Open(opts)
	if err != nil {
		t.Fatalf("open after crash (%v): %v", p.mode, err)
	}
	defer h.Close()
	present := map[string]bool{}
	if _, err := h.TableSchema("t"); err == nil {
		err = h.Scan("t", ScanOptions{}, func(r base.Row) bool {
			if len(r.Cells) != 3 {
				half++
			}
			present[string(r.Key)] = true
			return true
		})
		if err != nil {
			t.Fatalf("scan after crash: %v", err)
		}
	}
	for _, r := range p.deleted {
		if present[r] {
			resurrected++
		}
	}
	deleted := map[string]bool{}
	for _, r := range p.issued {
		deleted[r] = true
	}
	for _, r := range p.written {
		if !deleted[r] && !present[r] {
			lost++
		}
	}
	return lost, half, resurrected
}
