package cache

import (
	"fmt"
	"sync"
	"testing"
)

func intHash(k int) uint64 { return mix64(uint64(k)) }

func TestLRUOrder(t *testing.T) {
	c := New[int, string](3, intHash) // one shard
	c.Set(1, "a", 1)
	c.Set(2, "b", 1)
	c.Set(3, "c", 1)
	if v, ok := c.Get(1); !ok || v != "a" { // 1 becomes most recent
		t.Fatalf("Get(1) = %q, %v", v, ok)
	}
	c.Set(4, "d", 1) // evicts 2, the least recent
	if _, ok := c.Get(2); ok {
		t.Fatal("2 survived; want it evicted as least recently used")
	}
	for _, k := range []int{1, 3, 4} {
		if _, ok := c.Get(k); !ok {
			t.Fatalf("%d evicted", k)
		}
	}
	c.Set(5, "e", 2) // evicts 1 and 3
	if got := present(c, 1, 2, 3, 4, 5); got != "[4 5]" {
		t.Fatalf("present = %s, want [4 5]", got)
	}
	if st := c.Stats(); st.Evictions != 3 || st.Size != 3 || st.Capacity != 3 {
		t.Fatalf("Stats = %+v", st)
	}
}

func present(c *Cache[int, string], keys ...int) string {
	var got []int
	for _, k := range keys {
		if _, ok := c.Get(k); ok {
			got = append(got, k)
		}
	}
	return fmt.Sprint(got)
}

func TestReplaceAndDelete(t *testing.T) {
	c := New[int, string](100, intHash)
	c.Set(1, "a", 10)
	c.Set(1, "b", 30)
	if v, _ := c.Get(1); v != "b" || c.Size() != 30 {
		t.Fatalf("after replace: %q, Size %d", v, c.Size())
	}
	c.Set(2, "x", 5)
	c.Delete(1)
	c.Delete(7)
	if _, ok := c.Get(1); ok || c.Size() != 5 {
		t.Fatalf("after Delete: present %v, Size %d", ok, c.Size())
	}
	c.Set(3, "y", 5)
	c.Set(4, "z", 5)
	c.DeleteIf(func(k int) bool { return k%2 == 0 })
	if got := present(c, 1, 2, 3, 4); got != "[3]" || c.Size() != 5 {
		t.Fatalf("after DeleteIf: %s, Size %d", got, c.Size())
	}
}

func TestOversizedEntry(t *testing.T) {
	c := New[int, string](100, intHash)
	c.Set(1, "a", 50)
	c.Set(1, "huge", 101)
	if _, ok := c.Get(1); ok || c.Size() != 0 {
		t.Fatalf("oversized entry kept or old value left: Size %d", c.Size())
	}
}

func TestDisabled(t *testing.T) {
	c := New[int, string](0, intHash)
	c.Set(1, "a", 0)
	if _, ok := c.Get(1); ok {
		t.Fatal("capacity 0 cache kept an entry")
	}
	if st := c.Stats(); st.Misses != 1 || st.Size != 0 {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestStats(t *testing.T) {
	c := New[int, string](10, intHash)
	c.Set(1, "a", 4)
	c.Get(1)
	c.Get(1)
	c.Get(2)
	c.Set(2, "b", 4)
	c.Set(3, "c", 4) // evicts 1
	want := Stats{Hits: 2, Misses: 1, Evictions: 1, Size: 8, Capacity: 10}
	if st := c.Stats(); st != want {
		t.Fatalf("Stats = %+v, want %+v", st, want)
	}
}

// TestSizeWithinCapacity checks the bound after every Set, across shards.
func TestSizeWithinCapacity(t *testing.T) {
	const capacity = 64 << 20
	c := New[int, string](capacity, intHash)
	if len(c.shards) != maxShards {
		t.Fatalf("%d shards, want %d", len(c.shards), maxShards)
	}
	for i := range 5000 {
		c.Set(i%3000, "", int64(1+(i*7919)%(1<<20)))
		if s := c.Size(); s > capacity {
			t.Fatalf("Set %d: Size %d > capacity %d", i, s, capacity)
		}
	}
}

func TestShardCount(t *testing.T) {
	for _, tc := range []struct {
		capacity int64
		want     int
	}{{0, 1}, {1 << 20, 1}, {3 << 20, 2}, {8 << 20, 8}, {1 << 30, 16}} {
		if got := shardCount(tc.capacity); got != tc.want {
			t.Errorf("shardCount(%d) = %d, want %d", tc.capacity, got, tc.want)
		}
	}
}

func TestConcurrent(t *testing.T) {
	c := newCache[int, int](1000, 4, intHash, nil)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 5000 {
				k := (i*31 + g) % 500
				switch i % 4 {
				case 0, 1:
					if v, ok := c.Get(k); ok && v != k {
						t.Errorf("Get(%d) = %d", k, v)
					}
				case 2:
					c.Set(k, k, int64(1+k%20))
				default:
					c.Delete(k)
				}
				if s := c.Size(); s > 1000 {
					t.Errorf("Size %d > capacity", s)
				}
			}
		})
	}
	wg.Wait()
}
