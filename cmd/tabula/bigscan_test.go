package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/bigtable"
)

var (
	bigscan      = flag.Bool("bigscan", false, "run TestBigScan (loads and scans -bigscan.bytes through serve)")
	bigscanBytes = flag.Int64("bigscan.bytes", 1<<30, "bytes of values TestBigScan loads")
	bigscanRSS   = flag.Int64("bigscan.maxrss", 300<<20, "bound on serve's peak RSS in TestBigScan")
)

// TestBigScan — paper §5.3 and DESIGN §3: a read is served from the
// memtable and the SSTables merged as it goes, so a scan streams and the
// server's memory stays bounded by its caches and memtables, not by the
// data. It loads 1 GiB of 1000-byte values into serve (8 MiB memtable and
// block cache) with MutateRows, scans all of it with ReadRows, and samples
// the server's RSS from /proc. It asserts memory, not time.
//
//	go test ./cmd/tabula -run TestBigScan -bigscan -v -timeout 30m
func TestBigScan(t *testing.T) {
	if !*bigscan {
		t.Skip("needs -bigscan")
	}
	p := startServe(t, t.TempDir(), "--quiet", "--memtable", "8388608", "--block-cache", "8388608")
	c := connect(t, p.addr)
	c.createTable(t, "t")
	tbl := c.client.Open("t")
	mem := sampleMemory(t, p.cmd.Process.Pid)

	const valueSize, batch = 1000, 1000
	rows := int(*bigscanBytes / valueSize)
	start := time.Now()
	bigLoad(t, tbl, rows, valueSize, batch)
	loadTook, loadPeak := time.Since(start), mem.resetPeak()
	t.Logf("loaded %d rows, %d MiB of values, in %v; peak RSS while loading %d MiB",
		rows, int64(rows)*valueSize>>20, loadTook.Round(time.Second), loadPeak>>20)

	start = time.Now()
	n, size := bigRead(t, tbl, valueSize)
	scanTook, scanPeak := time.Since(start), mem.resetPeak()
	hwm := mem.stop()
	t.Logf("scanned %d rows, %d MiB of values, in %v; peak RSS while scanning %d MiB; VmHWM %d MiB",
		n, size>>20, scanTook.Round(time.Second), scanPeak>>20, hwm>>20)
	if n != rows {
		t.Errorf("scan returned %d rows, want %d", n, rows)
	}
	if scanPeak > *bigscanRSS {
		t.Errorf("peak RSS while scanning %d MiB, want under %d MiB", scanPeak>>20, *bigscanRSS>>20)
	}
	if loadPeak > *bigscanRSS {
		t.Errorf("peak RSS while loading %d MiB, want under %d MiB", loadPeak>>20, *bigscanRSS>>20)
	}
	if code := p.signal(syscall.SIGTERM, 30*time.Second); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// bigLoad writes rows r%09d with one cf:v cell of valueSize bytes, in
// ApplyBulk batches, from 4 goroutines. Values are slices of a random
// buffer, so they do not compress away.
func bigLoad(t *testing.T, tbl *bigtable.Table, rows, valueSize, batch int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 1<<20)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				first := int(next.Add(int64(batch))) - batch
				if first >= rows {
					return
				}
				if err := loadBatch(tbl, noise, first, min(first+batch, rows), valueSize); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func loadBatch(tbl *bigtable.Table, noise []byte, from, to, valueSize int) error {
	keys := make([]string, 0, to-from)
	muts := make([]*bigtable.Mutation, 0, to-from)
	for i := from; i < to; i++ {
		off := (i * 7919) % (len(noise) - valueSize)
		m := bigtable.NewMutation()
		m.Set("cf", "v", bigtable.Timestamp(1000), noise[off:off+valueSize])
		keys, muts = append(keys, fmt.Sprintf("r%09d", i)), append(muts, m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs, err := tbl.ApplyBulk(ctx, keys, muts)
	if err == nil && errs != nil {
		err = errors.Join(errs...)
	}
	if err != nil {
		return fmt.Errorf("load rows %d..%d: %w", from, to, err)
	}
	return nil
}

// bigRead scans the whole table, checking each value's size, and returns
// the rows and value bytes read.
func bigRead(t *testing.T, tbl *bigtable.Table, valueSize int) (rows int, size int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	err := tbl.ReadRows(ctx, bigtable.InfiniteRange(""), func(r bigtable.Row) bool {
		rows++
		for _, it := range r["cf"] {
			size += int64(len(it.Value))
			if len(it.Value) != valueSize {
				t.Errorf("row %q: value of %d bytes", r.Key(), len(it.Value))
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("scan after %d rows: %v", rows, err)
	}
	return rows, size
}

// memSampler polls /proc/PID/status every 20 ms.
type memSampler struct {
	pid  int
	mu   sync.Mutex
	peak int64 // highest VmRSS since the last resetPeak
	hwm  int64 // last VmHWM seen
	quit chan struct{}
	done chan struct{}
}

func sampleMemory(t *testing.T, pid int) *memSampler {
	s := &memSampler{pid: pid, quit: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	t.Cleanup(func() { s.stop() })
	return s
}

func (s *memSampler) run() {
	defer close(s.done)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		rss, hwm, err := procMemory(s.pid)
		if err == nil {
			s.mu.Lock()
			s.peak, s.hwm = max(s.peak, rss), max(s.hwm, hwm)
			s.mu.Unlock()
		}
		select {
		case <-s.quit:
			return
		case <-tick.C:
		}
	}
}

// resetPeak returns the highest VmRSS seen since the last call.
func (s *memSampler) resetPeak() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.peak
	s.peak = 0
	return p
}

// stop ends sampling and returns the process's VmHWM.
func (s *memSampler) stop() int64 {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hwm
}

// procMemory reads VmRSS and VmHWM, in bytes, from /proc/PID/status.
func procMemory(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if name == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	return rss, hwm, sc.Err()
}
