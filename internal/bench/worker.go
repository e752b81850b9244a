package bench

import (
	"context"
	"fmt"
	"math/rand/v2"

	"cloud.google.com/go/bigtable"
)

// A worker is one client of one target: its tables, its randomness and
// the latencies it measured.
type worker struct {
	r   *runner
	cfg Config
	t   *target
	rnd *rand.Rand
	// values is random bytes that values are cut from; the paper's values
	// are random, hence incompressible.
	values []byte
	paper  *bigtable.Table
	mem    *bigtable.Table
	ycsb   *bigtable.Table
	// zipf draws YCSB keys; made on first use.
	zipf *zipfian
	// lat holds the latency of every timed operation, in nanoseconds.
	lat []int64
}

func newWorker(r *runner, t *target, id int) *worker {
	seed := r.cfg.Seed*1_000_003 + uint64(id)
	w := &worker{
		r:     r,
		cfg:   r.cfg,
		t:     t,
		rnd:   rand.New(rand.NewPCG(seed, 0x7ab)),
		paper: t.data.Open(r.cfg.Table),
		mem:   t.data.Open(r.memTableName()),
		ycsb:  t.data.Open(r.ycsbTableName()),
	}
	w.values = make([]byte, 64<<10+r.cfg.Value)
	for i := range w.values {
		w.values[i] = byte(w.rnd.Uint32())
	}
	return w
}

// value returns n random bytes.
func (w *worker) value(n int) []byte {
	off := w.rnd.IntN(len(w.values) - n + 1)
	return w.values[off : off+n : off+n]
}

// scatter maps i to a row in [0, n), the paper's "hashed modulo R".
func (w *worker) scatter(i, n int64) int64 {
	return int64(mix64(uint64(i)^w.cfg.Seed) % uint64(n))
}

// mix64 is SplitMix64's finalizer: a bijection that scatters nearby inputs.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// paperKey is the key of row i: decimal, zero-padded so that keys sort as
// numbers do.
func paperKey(i int64) string { return fmt.Sprintf("%010d", i) }

func (w *worker) writeRow(ctx context.Context, tbl *bigtable.Table, key string) error {
	m := bigtable.NewMutation()
	m.Set(paperFamily, paperColumn, bigtable.ServerTime, w.value(w.cfg.Value))
	return tbl.Apply(ctx, key, m)
}

func (w *worker) readRow(ctx context.Context, tbl *bigtable.Table, key string) error {
	row, err := tbl.ReadRow(ctx, key, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err != nil {
		return err
	}
	return w.checkRow(row, key)
}

// checkRow makes sure a row read is the one written: a server that answers
// with nothing must not look fast.
func (w *worker) checkRow(row bigtable.Row, key string) error {
	if row.Key() != key {
		return fmt.Errorf("row %q: got %q", key, row.Key())
	}
	items := row[paperFamily]
	if len(items) != 1 || len(items[0].Value) != w.cfg.Value {
		return fmt.Errorf("row %q: %d cells, want 1 of %d bytes", key, len(items), w.cfg.Value)
	}
	return nil
}

// A rowMaker makes the key and mutation that write row i of a table.
type rowMaker func(w *worker, i int64) (string, *bigtable.Mutation)

// paperRow writes row i of the paper's tables: one value under f:c.
func paperRow(w *worker, i int64) (string, *bigtable.Mutation) {
	m := bigtable.NewMutation()
	m.Set(paperFamily, paperColumn, bigtable.ServerTime, w.value(w.cfg.Value))
	return paperKey(i), m
}

// writeBatch writes rows [lo, hi) with one MutateRows call.
func (w *worker) writeBatch(ctx context.Context, tbl *bigtable.Table, row rowMaker, lo, hi int64) error {
	keys := make([]string, 0, hi-lo)
	muts := make([]*bigtable.Mutation, 0, hi-lo)
	for i := lo; i < hi; i++ {
		k, m := row(w, i)
		keys = append(keys, k)
		muts = append(muts, m)
	}
	return applyBulk(ctx, tbl, keys, muts)
}

// applyBulk applies muts with MutateRows and returns the first error.
func applyBulk(ctx context.Context, tbl *bigtable.Table, keys []string, muts []*bigtable.Mutation) error {
	errs, err := tbl.ApplyBulk(ctx, keys, muts)
	if err != nil {
		return err
	}
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("row %q: %w", keys[i], err)
		}
	}
	return nil
}
