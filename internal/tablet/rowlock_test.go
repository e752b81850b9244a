package tablet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// syncGate holds every commit log sync while held, so that a test can
// look at what other writers do while a write waits for its sync.
type syncGate struct {
	held    atomic.Bool
	entered chan struct{} // gets a value when a sync is held
	release chan struct{} // closed to let held syncs go
}

func newSyncGate() *syncGate {
	return &syncGate{entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (g *syncGate) MaybeError(op vfs.Op, name string) error {
	if op == vfs.OpSync && strings.Contains(name, "/log/") && g.held.Load() {
		select {
		case g.entered <- struct{}{}:
		default:
		}
		<-g.release
	}
	return nil
}

func (g *syncGate) open() {
	g.held.Store(false)
	close(g.release)
}

func openGated(t *testing.T) (*Host, *syncGate) {
	t.Helper()
	g := newSyncGate()
	h := openWithRows(t, Options{FS: vfs.NewErrorFS(vfs.NewMem(), g), Dir: "db", Seed: 1, TestingKnobs: TestingKnobs{DisableBackground: true}}, 0)
	t.Cleanup(func() { h.Close() })
	return h, g
}

func batchOf(n int, value string) []RowMutation {
	rows := make([]RowMutation, n)
	for i := range rows {
		rows[i] = RowMutation{Row: fmt.Appendf(nil, "row%04d", i), Mutations: []base.Mutation{
			{Kind: base.KindPut, Family: "a", Qualifier: []byte("q"), Timestamp: 1000, Value: []byte(value)},
		}}
	}
	return rows
}

// A batch waiting for its sync holds no row locks: a second batch over
// the same rows gets its records into the commit log meanwhile, so both
// can share the next sync. Both land, the later one on top.
func TestBatchesOverlapWhileSyncing(t *testing.T) {
	h, g := openGated(t)
	g.held.Store(true)
	var wg sync.WaitGroup
	run := func(value string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, err := range h.ApplyBatch("t", batchOf(200, value)) {
				if err != nil {
					t.Errorf("batch %s entry %d: %v", value, i, err)
				}
			}
		}()
	}
	run("first")
	<-g.entered
	head := h.log.Head()
	run("second")
	deadline := time.Now().Add(10 * time.Second)
	for h.log.Head() == head {
		if time.Now().After(deadline) {
			g.open()
			wg.Wait()
			t.Fatal("the second batch did not reach the commit log while the first waited for its sync")
		}
		time.Sleep(time.Millisecond)
	}
	g.open()
	wg.Wait()
	for i := range 200 {
		r, err := h.ReadRow("t", fmt.Appendf(nil, "row%04d", i))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Cells) != 1 || string(r.Cells[0].Value) != "second" {
			t.Fatalf("row %d = %v, want the second batch's value", i, r.Cells)
		}
	}
}

// A check-and-mutate or read-modify-write sees a write to its row that
// took its place before it, even while that write still waits for its
// sync, although plain writes no longer hold the row lock that long.
func TestConditionalWritesSeePendingWrites(t *testing.T) {
	for _, op := range []string{"check-and-mutate", "read-modify-write"} {
		t.Run(op, func(t *testing.T) {
			h, g := openGated(t)
			row := []byte("r")
			g.held.Store(true)
			put := make(chan error, 1)
			go func() {
				put <- h.Apply("t", row, []base.Mutation{{Kind: base.KindPut, Family: "a", Qualifier: []byte("q"), Timestamp: 1000, Value: []byte("x")}})
			}()
			<-g.entered
			got := make(chan []byte, 1)
			go func() {
				switch op {
				case "check-and-mutate":
					matched, err := h.CheckAndMutate("t", row, func(r base.Row) (bool, error) { return len(r.Cells) > 0, nil },
						[]base.Mutation{{Kind: base.KindPut, Family: "b", Qualifier: []byte("q"), Timestamp: 1000, Value: []byte("seen")}},
						[]base.Mutation{{Kind: base.KindPut, Family: "b", Qualifier: []byte("q"), Timestamp: 1000, Value: []byte("missed")}})
					if err != nil {
						t.Error(err)
					}
					got <- fmt.Appendf(nil, "%v", matched)
				case "read-modify-write":
					r, err := h.ReadModifyWrite("t", row, []ModifyRule{{Family: "a", Qualifier: []byte("q"), Append: []byte("y")}})
					if err != nil {
						t.Error(err)
					}
					var v []byte
					if len(r.Cells) > 0 {
						v = r.Cells[0].Value
					}
					got <- v
				}
			}()
			// Give a conditional write that does not wait every chance to
			// read the row too early.
			time.Sleep(20 * time.Millisecond)
			g.open()
			if err := <-put; err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"check-and-mutate": "true", "read-modify-write": "xy"}[op]
			if v := <-got; !bytes.Equal(v, []byte(want)) {
				t.Fatalf("%s saw %q, want %q", op, v, want)
			}
		})
	}
}

// Increments from many goroutines, mixed with plain writes and batches to
// the same rows, lose none: each read-modify-write sees the one before.
func TestConcurrentIncrementsWithPlainWrites(t *testing.T) {
	h := openWithRows(t, Options{FS: vfs.NewMem(), Dir: "db", Seed: 1, MemtableSize: 64 << 10}, 0)
	defer h.Close()
	const workers, each, rows = 6, 150, 4
	rowKey := func(i int) []byte { return fmt.Appendf(nil, "row%04d", i%rows) }
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				row := rowKey(w + i)
				if _, err := h.ReadModifyWrite("t", row, []ModifyRule{{Family: "c", Qualifier: []byte("n"), IsIncrement: true, Increment: 1}}); err != nil {
					t.Error(err)
					return
				}
				var err error
				put := []base.Mutation{{Kind: base.KindPut, Family: "a", Qualifier: []byte("q"), Timestamp: base.ServerTimestamp, Value: []byte("v")}}
				if i%2 == 0 {
					err = h.Apply("t", row, put)
				} else {
					err = h.ApplyBatch("t", []RowMutation{{Row: row, Mutations: put}, {Row: rowKey(w + i + 1), Mutations: put}})[0]
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var total int64
	for i := range rows {
		r, err := h.ReadRow("t", rowKey(i))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Cells {
			if c.Family == "c" { // the newest version comes first
				total += int64(binary.BigEndian.Uint64(c.Value))
				break
			}
		}
	}
	if total != workers*each {
		t.Fatalf("counters sum to %d, want %d", total, workers*each)
	}
}
