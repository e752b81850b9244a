package commitlog

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/tabuladb/tabula/internal/vfs"
)

// A crash at any sync, with any part of the unsynced writes on disk, loses
// no acknowledged record: the reopened log replays every record
// acknowledged before the crash, then at most some later ones, in order.
func TestCrashAtEverySync(t *testing.T) {
	for _, mode := range []vfs.UnsyncedMode{vfs.DropUnsynced, vfs.KeepSomeUnsynced, vfs.KeepAllUnsynced} {
		t.Run(mode.String(), func(t *testing.T) { testCrashAtEverySync(t, mode) })
	}
}

func testCrashAtEverySync(t *testing.T, mode vfs.UnsyncedMode) {
	fs := vfs.NewMem()
	var (
		mu      sync.Mutex
		acked   []entry // acknowledged, in position order
		crashes []*vfs.MemFS
		at      []int // len(acked) when each crash was taken
	)
	seed := uint64(len(mode.String()))
	fs.SetHooks(vfs.Hooks{BeforeSync: func(string) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		c := fs.CrashClone(vfs.CrashCloneOptions{UnsyncedData: mode, Rand: rand.New(rand.NewPCG(seed, uint64(len(crashes))))})
		mu.Lock()
		crashes, at = append(crashes, c), append(at, n)
		mu.Unlock()
	}})
	l := openLog(t, Options{FS: fs, Dir: "log", SegmentSize: 2000})
	var all []entry
	for i := range 150 {
		rec := fmt.Sprintf("rec-%d-%s", i, make([]byte, i%40))
		p, err := l.Write([]byte(rec))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, entry{p.Pos(), rec})
		if i%3 == 2 {
			if err := p.Wait(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			acked = append(acked[:0], all...)
			mu.Unlock()
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	fs.SetHooks(vfs.Hooks{})
	for i, c := range crashes {
		l, err := Open(Options{FS: c, Dir: "log", SegmentSize: 2000})
		if err != nil {
			t.Fatalf("crash %d: Open: %v", i, err)
		}
		got := replayAll(t, l, Pos{})
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if len(got) < at[i] || len(got) > len(all) {
			t.Fatalf("crash %d: replayed %d records, want %d..%d", i, len(got), at[i], len(all))
		}
		checkEntries(t, got, all[:len(got)])
	}
	if len(crashes) < 40 {
		t.Fatalf("only %d syncs", len(crashes))
	}
}
