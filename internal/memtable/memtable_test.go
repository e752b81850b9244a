package memtable

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func TestAddAndIterate(t *testing.T) {
	m := New(Options{ArenaSize: 1 << 20, Seed: 1})
	if !m.Empty() || m.Size() != 0 {
		t.Fatalf("new memtable: Empty=%v Size=%d", m.Empty(), m.Size())
	}
	for _, k := range []string{"b", "d", "a", "c", ""} {
		if err := m.Add([]byte(k), []byte("v"+k)); err != nil {
			t.Fatalf("Add(%q): %v", k, err)
		}
	}
	it := m.NewIter()
	defer it.Close()
	var got []string
	for ok := it.First(); ok; ok = it.Next() {
		got = append(got, fmt.Sprintf("%s=%s", it.Key(), it.Value()))
	}
	if want := "[=v a=va b=vb c=vc d=vd]"; fmt.Sprint(got) != want {
		t.Fatalf("forward scan = %v, want %v", got, want)
	}
	if m.Len() != 5 || m.Empty() {
		t.Fatalf("Len=%d Empty=%v", m.Len(), m.Empty())
	}
}

func TestDuplicate(t *testing.T) {
	m := New(Options{ArenaSize: 1 << 20})
	if err := m.Add([]byte("k"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	size := m.Size()
	if err := m.Add([]byte("k"), []byte("2")); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("second Add = %v, want ErrDuplicate", err)
	}
	it := m.NewIter()
	if !it.SeekGE([]byte("k")) || string(it.Value()) != "1" {
		t.Fatalf("value after duplicate = %q, want 1", it.Value())
	}
	if m.Size() != size || m.Len() != 1 {
		t.Fatalf("duplicate changed Size %d→%d or Len to %d", size, m.Size(), m.Len())
	}
}

func TestFull(t *testing.T) {
	m := New(Options{ArenaSize: 1000})
	var err error
	n := 0
	for ; err == nil; n++ {
		err = m.Add(fmt.Appendf(nil, "key%04d", n), make([]byte, 50))
	}
	if !errors.Is(err, ErrFull) {
		t.Fatalf("Add = %v, want ErrFull", err)
	}
	if m.Size() > 1000 || m.Len() != n-1 {
		t.Fatalf("after ErrFull: Size=%d Len=%d adds=%d", m.Size(), m.Len(), n-1)
	}
	if err := m.Add([]byte("big"), make([]byte, 2000)); !errors.Is(err, ErrFull) {
		t.Fatalf("oversized Add = %v, want ErrFull", err)
	}
}

// TestEntryOverheadBound fills memtables to exactly the sum of
// EntryOverhead and checks no Add fails.
func TestEntryOverheadBound(t *testing.T) {
	for seed := range uint64(20) {
		rng := newRand(seed)
		var sizes [][2]int
		var total int64
		for range 500 {
			k, v := 1+rng.intn(40), rng.intn(200)
			sizes = append(sizes, [2]int{k, v})
			total += EntryOverhead(k, v)
		}
		m := New(Options{ArenaSize: total, Seed: seed})
		for i, s := range sizes {
			key := append(fmt.Appendf(nil, "%05d", i), make([]byte, s[0])...)[:s[0]+5]
			if err := m.Add(key, make([]byte, s[1])); err != nil {
				t.Fatalf("seed %d: Add %d of %d: %v (Size %d, ArenaSize %d)", seed, i, len(sizes), err, m.Size(), total)
			}
			if got := EntryOverhead(len(key), s[1]); got < 0 {
				t.Fatal(got)
			}
		}
		if m.Size() > total {
			t.Fatalf("seed %d: Size %d > sum of EntryOverhead %d", seed, m.Size(), total)
		}
	}
}

func TestLargeEntries(t *testing.T) {
	m := New(Options{ArenaSize: 64 << 20})
	big := bytes.Repeat([]byte("x"), 5<<20)
	for i, n := range []int{100, 3 << 20, 5 << 20, 10, 4<<20 - 20} {
		if err := m.Add(fmt.Appendf(nil, "k%d", i), big[:n]); err != nil {
			t.Fatalf("Add of %d bytes: %v", n, err)
		}
	}
	it := m.NewIter()
	i := 0
	for ok := it.First(); ok; ok = it.Next() {
		if want := fmt.Sprintf("k%d", i); string(it.Key()) != want {
			t.Fatalf("key %q, want %q", it.Key(), want)
		}
		i++
	}
	if i != 5 {
		t.Fatalf("saw %d entries, want 5", i)
	}
}

func TestKeyTooLarge(t *testing.T) {
	m := New(Options{})
	if err := m.Add(make([]byte, maxKeyLen+1), nil); !errors.Is(err, ErrKeyTooLarge) {
		t.Fatalf("Add = %v, want ErrKeyTooLarge", err)
	}
}

// rand is a small deterministic generator so failures replay from a seed.
type rand struct{ s uint64 }

func newRand(seed uint64) *rand { return &rand{s: seed} }

func (r *rand) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *rand) intn(n int) int { return int(r.next() % uint64(n)) }

// TestHintedAdds mixes ascending runs, which reuse the last insert's
// splice, with keys before and between earlier ones, and duplicates of the
// hint's neighbours.
func TestHintedAdds(t *testing.T) {
	m := New(Options{Seed: 3})
	md := &model{}
	rng := newRand(3)
	for i := range 5000 {
		var k []byte
		switch r := rng.intn(10); {
		case r < 6:
			k = fmt.Appendf(nil, "%06d", i*10) // ascending
		case r < 8:
			k = fmt.Appendf(nil, "%06d", rng.intn(i*10+1)) // anywhere, maybe present
		default:
			k = fmt.Appendf(nil, "%06d", max(0, i*10-10)) // the previous ascending key
		}
		err := m.Add(k, nil)
		if fresh := md.add(k); fresh != (err == nil) {
			t.Fatalf("add %d: Add(%q) = %v, model fresh=%v", i, k, err, fresh)
		}
	}
	it := m.NewIter()
	i := 0
	for ok := it.First(); ok; ok = it.Next() {
		if !bytes.Equal(it.Key(), md.keys[i]) {
			t.Fatalf("entry %d: %q, want %q", i, it.Key(), md.keys[i])
		}
		i++
	}
	if i != len(md.keys) {
		t.Fatalf("scanned %d entries, want %d", i, len(md.keys))
	}
}
