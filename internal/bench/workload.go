package bench

import (
	"context"
	"fmt"

	"cloud.google.com/go/bigtable"
)

// A workload is one benchmark. Its timed part is Ops units numbered 0 to
// Ops-1; the runner cuts them into rounds and each round into 10·N ranges
// that N clients take in turn, as the paper's central scheduler did.
type workload struct {
	name string
	// unit is what the rate counts: "ops/s", or "rows/s" when one unit
	// touches many rows (scan, bulk-write).
	unit string
	// paper is the Bigtable paper's single-server figure (Table 6).
	paper float64
	// setup prepares a target before the timed part; a non-empty skip
	// says why the workload cannot run there.
	setup func(ctx context.Context, r *runner, t *target) (skip string, err error)
	// ops is the number of units of the timed part.
	ops func(c Config) int64
	// do performs unit i and returns the rows it touched.
	do func(ctx context.Context, w *worker, i int64) (rows int64, err error)
	// after runs once every round on a target is done.
	after func(t *target)
	// loads says the workload writes the rows later workloads read, so a
	// time cap must not cut it short.
	loads bool
}

// workloads are every workload, in the order they run by default: the
// writes first, so that the reads find the rows.
var workloads = []*workload{
	{name: "seq-write", unit: "ops/s", paper: 8547, setup: paperTable, ops: rows, do: seqWrite, after: markLoaded, loads: true},
	{name: "random-write", unit: "ops/s", paper: 8850, setup: paperTable, ops: ops, do: randomWrite},
	{name: "seq-read", unit: "ops/s", paper: 4425, setup: paperLoaded, ops: rowsOps, do: seqRead},
	{name: "random-read", unit: "ops/s", paper: 1212, setup: paperLoaded, ops: ops, do: randomRead},
	{name: "random-read-mem", unit: "ops/s", paper: 10811, setup: memTable, ops: ops, do: randomReadMem},
	{name: "scan", unit: "rows/s", paper: 15385, setup: paperLoaded, ops: scanRanges, do: scan},
	{name: "bulk-write", unit: "rows/s", setup: paperTable, ops: batches, do: bulkWrite, after: markLoaded, loads: true},
	ycsbWorkload("ycsb-a", ycsbMix{read: 50, update: 50}),
	ycsbWorkload("ycsb-b", ycsbMix{read: 95, update: 5}),
	ycsbWorkload("ycsb-c", ycsbMix{read: 100}),
	ycsbWorkload("ycsb-d", ycsbMix{read: 95, insert: 5, latest: true}),
	ycsbWorkload("ycsb-e", ycsbMix{scan: 95, insert: 5}),
	ycsbWorkload("ycsb-f", ycsbMix{read: 50, rmw: 50}),
}

func workloadNames() []string {
	names := make([]string, len(workloads))
	for i, w := range workloads {
		names[i] = w.name
	}
	return names
}

func lookupWorkload(name string) *workload {
	for _, w := range workloads {
		if w.name == name {
			return w
		}
	}
	return nil
}

func rows(c Config) int64    { return c.Rows }
func ops(c Config) int64     { return c.Ops }
func rowsOps(c Config) int64 { return min(c.Rows, c.Ops) }

func scanRanges(c Config) int64 { return (c.Rows + c.ScanRows - 1) / c.ScanRows }
func batches(c Config) int64    { return (c.Rows + int64(c.Batch) - 1) / int64(c.Batch) }

func markLoaded(t *target) { t.loaded = true }

// paperTable needs the paper table, which the runner creates at the start.
func paperTable(context.Context, *runner, *target) (string, error) { return "", nil }

// paperLoaded needs every row of the row space in the paper table; it
// loads them, untimed, when no write workload ran before.
func paperLoaded(ctx context.Context, r *runner, t *target) (string, error) {
	if t.loaded {
		return "", nil
	}
	if err := r.load(ctx, t, r.cfg.Table, paperRow, r.cfg.Rows); err != nil {
		return "", err
	}
	t.loaded = true
	return "", nil
}

// memTable makes the small in-memory table of random-read-mem. The paper
// marks the locality group in-memory and shrinks the data to 100 MB per
// server so that it fits.
func memTable(ctx context.Context, r *runner, t *target) (string, error) {
	if t.ext == nil {
		return "the server has no in-memory locality groups (Tabula's admin extension is not served)", nil
	}
	if t.memLoaded {
		return "", nil
	}
	table := r.memTableName()
	if err := t.createTable(ctx, table, paperFamily); err != nil {
		return "", err
	}
	if err := t.setInMemory(ctx, table, paperFamily); err != nil {
		return "", err
	}
	if err := r.load(ctx, t, table, paperRow, r.cfg.MemRows); err != nil {
		return "", err
	}
	if err := t.flush(ctx, table); err != nil {
		return "", fmt.Errorf("flush %s: %w", table, err)
	}
	t.memLoaded = true
	return "", nil
}

// seqWrite writes row i (paper: row keys 0 to R-1 in order).
func seqWrite(ctx context.Context, w *worker, i int64) (int64, error) {
	return 1, w.writeRow(ctx, w.paper, paperKey(i))
}

// randomWrite writes row hash(i) mod R, spreading writes over the row space.
func randomWrite(ctx context.Context, w *worker, i int64) (int64, error) {
	return 1, w.writeRow(ctx, w.paper, paperKey(w.scatter(i, w.cfg.Rows)))
}

func seqRead(ctx context.Context, w *worker, i int64) (int64, error) {
	return 1, w.readRow(ctx, w.paper, paperKey(i))
}

func randomRead(ctx context.Context, w *worker, i int64) (int64, error) {
	return 1, w.readRow(ctx, w.paper, paperKey(w.scatter(i, w.cfg.Rows)))
}

func randomReadMem(ctx context.Context, w *worker, i int64) (int64, error) {
	return 1, w.readRow(ctx, w.mem, paperKey(w.scatter(i, w.cfg.MemRows)))
}

// scan reads ScanRows rows with one ReadRows call; the paper's scan
// benchmark reads the row space through the scan API.
func scan(ctx context.Context, w *worker, i int64) (int64, error) {
	lo := i * w.cfg.ScanRows
	hi := min(lo+w.cfg.ScanRows, w.cfg.Rows)
	var n int64
	var bad error
	err := w.paper.ReadRows(ctx, bigtable.NewRange(paperKey(lo), paperKey(hi)), func(row bigtable.Row) bool {
		if bad = w.checkRow(row, paperKey(lo+n)); bad != nil {
			return false
		}
		n++
		return true
	}, bigtable.RowFilter(bigtable.LatestNFilter(1)))
	if err == nil {
		err = bad
	}
	if err == nil && n != hi-lo {
		err = fmt.Errorf("scan [%s, %s): %d rows, want %d", paperKey(lo), paperKey(hi), n, hi-lo)
	}
	return n, err
}

// bulkWrite writes Batch consecutive rows with one MutateRows call.
func bulkWrite(ctx context.Context, w *worker, i int64) (int64, error) {
	lo := i * int64(w.cfg.Batch)
	hi := min(lo+int64(w.cfg.Batch), w.cfg.Rows)
	return hi - lo, w.writeBatch(ctx, w.paper, paperRow, lo, hi)
}
