package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"
)

var crashSeed = flag.Uint64("crashseed", 0, "seed of TestKill9 (0: from the clock)")

// load is what the writers of one round did.
type load struct {
	rows        []string // keys whose MutateRow or MutateRows entry returned OK
	incAcked    int64    // ReadModifyWriteRow calls that returned OK
	incAttempts int64    // ReadModifyWriteRow calls sent
}

// TestKill9 — DESIGN §2: a write is acknowledged only after its log record
// is durable, and rows are atomic. Writers (MutateRow, MutateRows,
// ReadModifyWriteRow) run against serve, which is killed with SIGKILL
// mid-write and restarted on the same directory, three times. Every
// acknowledged row must be there whole, every row there must be whole, and
// the counter must lie between the acknowledged and the attempted
// increments.
func TestKill9(t *testing.T) {
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -crashseed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	dir := t.TempDir()
	p := startServe(t, dir)
	c := connect(t, p.addr)
	c.createTable(t, "t")
	var total load
	for round := 0; round < 3; round++ {
		tbl := c.client.Open("t")
		ctx, stop := context.WithCancel(context.Background())
		got := make(chan load, 1)
		go func() { got <- runLoad(ctx, tbl, fmt.Sprintf("k%d", round)) }()
		delay := time.Second + time.Duration(rng.Int64N(int64(time.Second)))
		time.Sleep(delay)
		if code := p.signal(syscall.SIGKILL, 10*time.Second); code != -1 {
			t.Fatalf("round %d: exit code %d after SIGKILL", round, code)
		}
		stop()
		l := <-got
		c.close()
		total.rows = append(total.rows, l.rows...)
		total.incAcked += l.incAcked
		total.incAttempts += l.incAttempts

		p = startServe(t, dir)
		c = connect(t, p.addr)
		found := verifyAfterCrash(t, c.client.Open("t"), total)
		t.Logf("round %d: killed after %v; acknowledged %d rows this round, %d in all; %d rows found; counter acked %d attempted %d found %d",
			round, delay.Round(time.Millisecond), len(l.rows), len(total.rows), found.rows, total.incAcked, total.incAttempts, found.counter)
		if t.Failed() {
			return
		}
	}
	if code := p.signal(syscall.SIGTERM, 10*time.Second); code != 0 {
		t.Errorf("final SIGTERM: exit code %d", code)
	}
}

// runLoad writes until ctx ends: 6 MutateRow writers, 2 MutateRows
// writers of 20 entries each call, and 2 ReadModifyWriteRow incrementers of
// the row "counter".
func runLoad(ctx context.Context, tbl *bigtable.Table, prefix string) load {
	var l load
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		acked := writeRows(ctx, tbl, prefix+"-m", 6)
		mu.Lock()
		l.rows = append(l.rows, acked...)
		mu.Unlock()
	}()
	go func() {
		defer wg.Done()
		acked := writeBulk(ctx, tbl, prefix+"-b", 2)
		mu.Lock()
		l.rows = append(l.rows, acked...)
		mu.Unlock()
	}()
	go func() {
		defer wg.Done()
		l.incAcked, l.incAttempts = increment(ctx, tbl, 2)
	}()
	wg.Wait()
	return l
}

// writeBulk writes batches of 20 rows with ApplyBulk from n goroutines
// until ctx ends, and returns the keys of the entries acknowledged.
func writeBulk(ctx context.Context, tbl *bigtable.Table, prefix string, n int) []string {
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				keys := make([]string, 20)
				muts := make([]*bigtable.Mutation, 20)
				for j := range keys {
					keys[j] = fmt.Sprintf("%s-w%02d-%06d-%02d", prefix, w, i, j)
					muts[j] = rowMutation(keys[j])
				}
				ctx, cancel := context.WithTimeout(ctx, callTimeout)
				errs, err := tbl.ApplyBulk(ctx, keys, muts)
				cancel()
				if err != nil {
					continue
				}
				mu.Lock()
				for j, k := range keys {
					if errs == nil || errs[j] == nil {
						acked = append(acked, k)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return acked
}

// increment adds 1 to cf:n of row "counter" from n goroutines until ctx
// ends, and returns the calls acknowledged and the calls sent.
// ReadModifyWriteRow is not retried by the client, so each call sent
// applies at most once.
func increment(ctx context.Context, tbl *bigtable.Table, n int) (acked, attempts int64) {
	var a, s atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				m := bigtable.NewReadModifyWrite()
				m.Increment("cf", "n", 1)
				ctx, cancel := context.WithTimeout(ctx, callTimeout)
				s.Add(1)
				_, err := tbl.ApplyReadModifyWrite(ctx, "counter", m)
				cancel()
				if err == nil {
					a.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return a.Load(), s.Load()
}

type found struct {
	rows    int
	counter int64
}

// verifyAfterCrash checks the table against what the writers were told.
func verifyAfterCrash(t *testing.T, tbl *bigtable.Table, want load) found {
	t.Helper()
	rows := scanAll(t, tbl)
	var f found
	if r, ok := rows["counter"]; ok {
		delete(rows, "counter")
		f.counter = counterValue(t, r)
	}
	f.rows = len(rows)
	lost, partial := 0, 0
	for _, k := range want.rows {
		if _, ok := rows[k]; !ok {
			if lost++; lost <= 10 {
				t.Errorf("acknowledged row %q lost", k)
			}
		}
	}
	for _, r := range rows {
		if msg := checkRow(r); msg != "" {
			if partial++; partial <= 10 {
				t.Errorf("half-applied: %s", msg)
			}
		}
	}
	if lost+partial > 0 {
		t.Errorf("%d acknowledged rows lost of %d, %d rows half-applied of %d", lost, len(want.rows), partial, len(rows))
	}
	if f.counter < want.incAcked || f.counter > want.incAttempts {
		t.Errorf("counter = %d, want between %d acknowledged and %d attempted increments", f.counter, want.incAcked, want.incAttempts)
	}
	return f
}

func counterValue(t *testing.T, r bigtable.Row) int64 {
	t.Helper()
	items := r["cf"]
	if len(items) != 1 || len(items[0].Value) != 8 {
		t.Errorf("counter row = %v, want one 8-byte cell", r)
		return 0
	}
	return int64(binary.BigEndian.Uint64(items[0].Value))
}
