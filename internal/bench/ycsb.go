package bench

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"cloud.google.com/go/bigtable"
)

// YCSB's core workloads (Cooper et al., SoCC 2010) as its defaults define
// them: records of 10 fields, hashed "user" keys, zipfian requests with
// constant 0.99, reads of whole records, updates of one field.

// ycsbMix is a workload's operation mix in percent.
type ycsbMix struct {
	read, update, insert, scan, rmw int
	// latest draws keys near the newest record instead of the popular ones.
	latest bool
}

// zipfConstant is YCSB's default request skew.
const zipfConstant = 0.99

// ycsbMaxScan is YCSB's default longest scan, in records.
const ycsbMaxScan = 100

func ycsbWorkload(name string, mix ycsbMix) *workload {
	return &workload{
		name: name, unit: "ops/s", setup: ycsbTable, ops: ops,
		do: func(ctx context.Context, w *worker, _ int64) (int64, error) { return w.ycsbOp(ctx, mix) },
	}
}

// ycsbTable creates and loads the YCSB table with Rows records, untimed,
// the first time a YCSB workload runs on a target. Later workloads see
// the records D and E inserted, as they would in a YCSB run.
func ycsbTable(ctx context.Context, r *runner, t *target) (string, error) {
	if t.ycsbLoaded {
		return "", nil
	}
	table := r.ycsbTableName()
	if err := t.createTable(ctx, table, ycsbFamily); err != nil {
		return "", err
	}
	if err := r.load(ctx, t, table, ycsbRecord, r.cfg.Rows); err != nil {
		return "", err
	}
	t.ycsbRecords.Store(r.cfg.Rows)
	t.ycsbLoaded = true
	return "", nil
}

// ycsbKey is record i's key: YCSB hashes record numbers so that inserts
// do not arrive in key order.
func ycsbKey(i int64) string { return "user" + strconv.FormatUint(mix64(uint64(i)), 10) }

func ycsbField(f int) string { return "field" + strconv.Itoa(f) }

func (w *worker) fieldLen() int { return w.cfg.Value / ycsbFields }

// ycsbRecord writes every field of record i.
func ycsbRecord(w *worker, i int64) (string, *bigtable.Mutation) {
	m := bigtable.NewMutation()
	for f := range ycsbFields {
		m.Set(ycsbFamily, ycsbField(f), bigtable.ServerTime, w.value(w.fieldLen()))
	}
	return ycsbKey(i), m
}

// ycsbOp performs one operation drawn from mix.
func (w *worker) ycsbOp(ctx context.Context, mix ycsbMix) (int64, error) {
	p := w.rnd.IntN(100)
	switch {
	case p < mix.read:
		return 1, w.ycsbRead(ctx, w.ycsbNext(mix))
	case p < mix.read+mix.update:
		return 1, w.ycsbUpdate(ctx, w.ycsbNext(mix))
	case p < mix.read+mix.update+mix.insert:
		return 1, w.ycsbInsert(ctx)
	case p < mix.read+mix.update+mix.insert+mix.scan:
		return w.ycsbScan(ctx, w.ycsbNext(mix))
	default:
		if err := w.ycsbRead(ctx, w.ycsbNext(mix)); err != nil {
			return 0, err
		}
		return 1, w.ycsbUpdate(ctx, w.ycsbNext(mix))
	}
}

// ycsbNext draws a record number: zipfian over the records and scrambled
// by a hash so that the popular records are spread over the key space, or
// with latest, zipfian over age so that the newest are the most popular.
func (w *worker) ycsbNext(mix ycsbMix) int64 {
	n := w.t.ycsbRecords.Load()
	if w.zipf == nil {
		w.zipf = w.r.zipfian()
	}
	z := w.zipf.next(w.rnd.Float64(), n)
	if mix.latest {
		return n - 1 - z
	}
	return int64(mix64(uint64(z)) % uint64(n))
}

func (w *worker) ycsbRead(ctx context.Context, i int64) error {
	key := ycsbKey(i)
	row, err := w.ycsb.ReadRow(ctx, key, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err != nil {
		return err
	}
	// Records past the load may be in flight from another client.
	if i < w.cfg.Rows && len(row[ycsbFamily]) != ycsbFields {
		return fmt.Errorf("record %q: %d fields, want %d", key, len(row[ycsbFamily]), ycsbFields)
	}
	return nil
}

func (w *worker) ycsbUpdate(ctx context.Context, i int64) error {
	m := bigtable.NewMutation()
	m.Set(ycsbFamily, ycsbField(w.rnd.IntN(ycsbFields)), bigtable.ServerTime, w.value(w.fieldLen()))
	return w.ycsb.Apply(ctx, ycsbKey(i), m)
}

func (w *worker) ycsbInsert(ctx context.Context) error {
	i := w.t.ycsbRecords.Add(1) - 1
	key, m := ycsbRecord(w, i)
	return w.ycsb.Apply(ctx, key, m)
}

// ycsbScan reads up to 100 records from record i's key on.
func (w *worker) ycsbScan(ctx context.Context, i int64) (int64, error) {
	limit := 1 + w.rnd.Int64N(ycsbMaxScan)
	var n int64
	err := w.ycsb.ReadRows(ctx, bigtable.InfiniteRange(ycsbKey(i)), func(bigtable.Row) bool {
		n++
		return true
	}, bigtable.LimitRows(limit), bigtable.RowFilter(bigtable.LatestNFilter(1)))
	return n, err
}

// zipfian draws from a zipfian distribution over [0, n) by the method of
// Gray et al., "Quickly generating billion-record synthetic databases"
// (SIGMOD 1994), as YCSB does; n may grow between draws.
type zipfian struct {
	theta, alpha, zeta2 float64
	n                   int64
	zetan, eta          float64
}

// zipfian returns a fresh copy of the run's zipfian over Rows records;
// ζ(n) takes a while to sum for millions of records, so it is summed once.
func (r *runner) zipfian() *zipfian {
	r.zipfOnce.Do(func() { r.zipf = newZipfian(r.cfg.Rows, zipfConstant) })
	z := *r.zipf
	return &z
}

func newZipfian(n int64, theta float64) *zipfian {
	z := &zipfian{theta: theta, alpha: 1 / (1 - theta), zeta2: 1 + math.Pow(0.5, theta)}
	z.grow(n)
	return z
}

// grow extends ζ(n) = Σ 1/i^θ to a new n.
func (z *zipfian) grow(n int64) {
	if n < z.n {
		z.n, z.zetan = 0, 0
	}
	for i := z.n + 1; i <= n; i++ {
		z.zetan += 1 / math.Pow(float64(i), z.theta)
	}
	z.n = n
	z.eta = (1 - math.Pow(2/float64(n), 1-z.theta)) / (1 - z.zeta2/z.zetan)
}

// next maps a uniform u in [0, 1) to a draw over [0, n).
func (z *zipfian) next(u float64, n int64) int64 {
	if n != z.n {
		z.grow(n)
	}
	uz := u * z.zetan
	if uz < 1 {
		return 0
	}
	if uz < z.zeta2 {
		return 1
	}
	v := int64(float64(n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(max(v, 0), n-1)
}
