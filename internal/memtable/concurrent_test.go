package memtable

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// valueOf derives a value from its key so readers can check an entry is
// whole.
func valueOf(key []byte) []byte {
	return append(bytes.Repeat([]byte{key[len(key)-1]}, int(key[len(key)-1])%37), key...)
}

// TestConcurrentAddAndRead runs writers adding disjoint keys and, at the
// same time, readers scanning in both directions and seeking; readers must
// always see strictly ascending keys and complete entries.
func TestConcurrentAddAndRead(t *testing.T) {
	const writers, readers, perWriter = 4, 3, 2000
	m := New(Options{ArenaSize: 64 << 20, Seed: 7})
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	for w := range writers {
		wg.Go(func() {
			rng := newRand(uint64(w))
			for i := range perWriter {
				k := fmt.Appendf(nil, "%08d/%d", rng.intn(1<<24), w*perWriter+i)
				if err := m.Add(k, valueOf(k)); err != nil {
					errs <- fmt.Errorf("Add(%q): %v", k, err)
					return
				}
			}
		})
	}
	var rwg sync.WaitGroup
	for r := range readers {
		rwg.Go(func() {
			rng := newRand(uint64(100 + r))
			for !done.Load() {
				if err := checkScan(m, rng); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	done.Store(true)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if m.Len() != writers*perWriter {
		t.Fatalf("Len %d, want %d", m.Len(), writers*perWriter)
	}
	if err := checkScan(m, newRand(0)); err != nil {
		t.Fatal(err)
	}
}

// checkScan scans m forward from a random seek and backward from the end,
// checking order and entry integrity.
func checkScan(m *Memtable, rng *rand) error {
	it := m.NewIter()
	defer it.Close()
	check := func(prev []byte, forward bool) error {
		k, v := it.Key(), it.Value()
		if !bytes.Equal(v, valueOf(k)) {
			return fmt.Errorf("torn entry %q=%q", k, v)
		}
		if prev != nil && (bytes.Compare(prev, k) >= 0) == forward {
			return fmt.Errorf("out of order: %q then %q (forward %v)", prev, k, forward)
		}
		return nil
	}
	var prev []byte
	for ok := it.SeekGE(fmt.Appendf(nil, "%08d", rng.intn(1<<24))); ok; ok = it.Next() {
		if err := check(prev, true); err != nil {
			return err
		}
		prev = it.Key()
	}
	prev = nil
	for ok := it.Last(); ok; ok = it.Prev() {
		if err := check(prev, false); err != nil {
			return err
		}
		prev = it.Key()
	}
	return nil
}
