package memtable

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
)

func benchKeys(n int, random bool) [][]byte {
	rng := newRand(1)
	keys := make([][]byte, n)
	for i := range keys {
		k := make([]byte, 16)
		if random {
			binary.BigEndian.PutUint64(k, rng.next())
		}
		binary.BigEndian.PutUint64(k[8:], uint64(i))
		keys[i] = k
	}
	return keys
}

func BenchmarkAdd(b *testing.B) {
	for _, bc := range []struct {
		name   string
		random bool
	}{{"sequential", false}, {"random", true}} {
		b.Run(bc.name, func(b *testing.B) {
			keys := benchKeys(b.N, bc.random)
			value := make([]byte, 100)
			m := New(Options{ArenaSize: MaxArenaSize})
			b.ResetTimer()
			for i := range b.N {
				if err := m.Add(keys[i], value); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAddParallel(b *testing.B) {
	keys := benchKeys(b.N, true)
	value := make([]byte, 100)
	m := New(Options{ArenaSize: MaxArenaSize})
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := m.Add(keys[next.Add(1)-1], value); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// filled returns a memtable of n random 16-byte keys with 100-byte values.
func filled(b *testing.B, n int) (*Memtable, [][]byte) {
	keys := benchKeys(n, true)
	value := make([]byte, 100)
	m := New(Options{ArenaSize: MaxArenaSize})
	for _, k := range keys {
		if err := m.Add(k, value); err != nil {
			b.Fatal(err)
		}
	}
	return m, keys
}

func BenchmarkSeekGE(b *testing.B) {
	m, keys := filled(b, 1<<20)
	it := m.NewIter()
	b.ResetTimer()
	for i := range b.N {
		if !it.SeekGE(keys[i&(len(keys)-1)]) {
			b.Fatal("SeekGE missed")
		}
	}
}

func BenchmarkIterNext(b *testing.B) {
	m, _ := filled(b, 1<<20)
	it := m.NewIter()
	b.ResetTimer()
	for range b.N {
		if !it.Next() {
			it.First()
		}
	}
}
