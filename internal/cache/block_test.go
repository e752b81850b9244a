package cache

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestBlockCacheEvictFile(t *testing.T) {
	b := NewBlockCache(64 << 20)
	block := make([]byte, 100)
	for f := uint64(1); f <= 3; f++ {
		for off := uint64(0); off < 100; off++ {
			b.Set(f, off*4096, block)
		}
	}
	if want := int64(300 * (100 + blockOverhead)); b.Size() != want {
		t.Fatalf("Size %d, want %d", b.Size(), want)
	}
	b.EvictFile(2)
	b.EvictFile(9)
	for f := uint64(1); f <= 3; f++ {
		for off := uint64(0); off < 100; off++ {
			if _, ok := b.Get(f, off*4096); ok != (f != 2) {
				t.Fatalf("file %d block %d: present %v", f, off, ok)
			}
		}
	}
	if want := int64(200 * (100 + blockOverhead)); b.Size() != want {
		t.Fatalf("Size after EvictFile %d, want %d", b.Size(), want)
	}
	for i := range b.c.shards {
		if _, ok := b.c.shards[i].groups[2]; ok {
			t.Fatalf("shard %d still indexes file 2", i)
		}
	}
}

// TestBlockCacheGroupIndex exercises removal from the middle, head and
// tail of a file's index through replacement, Delete and eviction.
func TestBlockCacheGroupIndex(t *testing.T) {
	b := NewBlockCache(10 * (10 + blockOverhead))
	block := make([]byte, 10)
	for off := range uint64(10) {
		b.Set(1, off, block)
	}
	b.Set(1, 5, block)         // replace a middle entry
	b.Set(1, 9, block)         // replace the head
	b.c.Delete(blockKey{1, 0}) // delete the tail
	b.Set(2, 0, block)         // fits
	b.Set(2, 1, block)         // evicts the least recent: (1, 1)
	if _, ok := b.Get(1, 1); ok {
		t.Fatal("(1, 1) not evicted")
	}
	b.EvictFile(1)
	if st := b.Stats(); st.Size != 2*(10+blockOverhead) {
		t.Fatalf("after EvictFile: %+v", st)
	}
	if len(b.c.shards[0].groups) != 1 {
		t.Fatalf("groups %v", b.c.shards[0].groups)
	}
}

func TestBlockCacheConcurrentEvictFile(t *testing.T) {
	b := NewBlockCache(4 << 20)
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			block := make([]byte, 512)
			for i := range 3000 {
				f, off := uint64(i%7), uint64(i%200)
				switch (i + g) % 5 {
				case 0:
					b.EvictFile(f)
				case 1, 2:
					b.Set(f, off, block)
				default:
					b.Get(f, off)
				}
			}
		})
	}
	wg.Wait()
	for f := range uint64(7) {
		b.EvictFile(f)
	}
	if b.Size() != 0 {
		t.Fatalf("Size %d after evicting every file", b.Size())
	}
}

func BenchmarkBlockCacheGetParallel(b *testing.B) {
	const blocks = 1 << 14
	// Twice the room, as shards fill unevenly.
	c := NewBlockCache(2 * blocks * (4096 + blockOverhead))
	block := make([]byte, 4096)
	for i := range uint64(blocks) {
		c.Set(i/64, i%64*4096, block)
	}
	var start atomic.Uint64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := mix64(start.Add(1)) % blocks
		for pb.Next() {
			i = (i + 7919) % blocks
			if _, ok := c.Get(i/64, i%64*4096); !ok {
				b.Error("miss")
				return
			}
		}
	})
}
