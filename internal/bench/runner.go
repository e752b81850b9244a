package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// maxErrors ends a phase early once this many operations failed: a server
// that is down should not keep the run going for hours.
const maxErrors = 1000

// runner runs the configured workloads on every target.
type runner struct {
	cfg     Config
	targets []*target
	// progress receives a progress line per second; nil for none.
	progress io.Writer
	// workers[i] are target i's workers, kept across rounds of a workload.
	workers [][]*worker
	// zipf is the YCSB key distribution over Rows records.
	zipfOnce sync.Once
	zipf     *zipfian
}

func (r *runner) memTableName() string  { return r.cfg.Table + "-mem" }
func (r *runner) ycsbTableName() string { return r.cfg.Table + "-ycsb" }

// run runs every workload and returns their reports.
func (r *runner) run(ctx context.Context) ([]WorkloadReport, error) {
	for _, t := range r.targets {
		if err := t.createTable(ctx, r.cfg.Table, paperFamily); err != nil {
			return nil, fmt.Errorf("%s: %w", t.srv.Label, err)
		}
	}
	var out []WorkloadReport
	for _, name := range r.cfg.Workloads {
		wr, err := r.runWorkload(ctx, lookupWorkload(name))
		if err != nil {
			return out, err
		}
		out = append(out, wr)
	}
	return out, nil
}

// cleanup deletes the tables the run made, unless Keep.
func (r *runner) cleanup(ctx context.Context) {
	if r.cfg.Keep {
		return
	}
	for _, t := range r.targets {
		t.dropTables(ctx, r.cfg.Table, r.memTableName(), r.ycsbTableName())
	}
}

// runWorkload sets the workload up on every target, then runs its rounds,
// alternating the order of the targets from round to round.
func (r *runner) runWorkload(ctx context.Context, wl *workload) (WorkloadReport, error) {
	rep := WorkloadReport{Name: wl.name, Unit: wl.unit, Paper: wl.paper, Results: make([]Result, len(r.targets))}
	r.workers = make([][]*worker, len(r.targets))
	for i, t := range r.targets {
		skip, err := wl.setup(ctx, r, t)
		if err != nil {
			return rep, fmt.Errorf("%s on %s: setup: %w", wl.name, t.srv.Label, err)
		}
		rep.Results[i].Skipped = skip
	}
	total := wl.ops(r.cfg)
	for k := range r.cfg.Rounds {
		lo, hi := total*int64(k)/int64(r.cfg.Rounds), total*int64(k+1)/int64(r.cfg.Rounds)
		for _, i := range roundOrder(len(r.targets), k) {
			if rep.Results[i].Skipped != "" {
				continue
			}
			res := &rep.Results[i]
			label := fmt.Sprintf("%s on %s", wl.name, r.targets[i].srv.Label)
			var deadline time.Time
			if r.cfg.MaxTime > 0 && !wl.loads {
				deadline = time.Now().Add(r.cfg.MaxTime / time.Duration(r.cfg.Rounds))
			}
			s := r.parallel(ctx, r.workersOf(i), label, lo, hi, total, deadline, wl.do)
			res.Capped = res.Capped || s.capped
			res.Planned += hi - lo
			res.Ops += s.ops
			res.Rows += s.rows
			res.Errors += s.errors
			res.Seconds += s.elapsed.Seconds()
			if s.err != nil && res.Error == "" {
				res.Error = s.err.Error()
			}
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
	}
	for i, t := range r.targets {
		r.finish(&rep.Results[i], wl, i)
		if wl.after != nil && rep.Results[i].Skipped == "" {
			wl.after(t)
		}
	}
	return rep, nil
}

// roundOrder is the order targets run in round k: A B, then B A, ...
func roundOrder(n, k int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if k%2 == 1 {
		slices.Reverse(order)
	}
	return order
}

func (r *runner) workersOf(i int) []*worker {
	if r.workers[i] == nil {
		for c := range r.cfg.Clients {
			r.workers[i] = append(r.workers[i], newWorker(r, r.targets[i], c))
		}
	}
	return r.workers[i]
}

// finish computes a result's rate and latencies from its workers.
func (r *runner) finish(res *Result, wl *workload, i int) {
	if res.Skipped != "" {
		return
	}
	count := res.Ops
	if wl.unit == "rows/s" {
		count = res.Rows
	}
	if res.Seconds > 0 {
		res.Rate = float64(count) / res.Seconds
	}
	var lat []int64
	for _, w := range r.workers[i] {
		lat = append(lat, w.lat...)
		w.lat = w.lat[:0]
	}
	slices.Sort(lat)
	res.P50, res.P99, res.P999 = percentile(lat, 0.50), percentile(lat, 0.99), percentile(lat, 0.999)
}

// percentile returns the q-quantile of sorted latencies.
func percentile(sorted []int64, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return time.Duration(sorted[max(0, min(i, len(sorted)-1))])
}

// sample is what one parallel phase measured.
type sample struct {
	ops, rows, errors int64
	elapsed           time.Duration
	err               error
	capped            bool // the deadline stopped the phase early
}

// parallel runs units [lo, hi) on the workers: the range is cut into 10
// pieces per worker, and each worker takes the next piece when it
// finishes one. total is the size of the whole phase, for the progress
// line. Past a non-zero deadline no unit starts.
func (r *runner) parallel(ctx context.Context, ws []*worker, label string, lo, hi, total int64, deadline time.Time, do func(context.Context, *worker, int64) (int64, error)) sample {
	pieces := int64(10 * len(ws))
	size := max(1, (hi-lo+pieces-1)/pieces)
	var next, done, rows, errs atomic.Int64
	var firstErr atomic.Pointer[error]
	var capped atomic.Bool
	running := func() bool {
		if !deadline.IsZero() && time.Now().After(deadline) {
			capped.Store(true)
			return false
		}
		return ctx.Err() == nil
	}
	stop := r.startProgress(label, lo, total, &done)
	start := time.Now()
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() {
			for running() && errs.Load() < maxErrors {
				a := lo + next.Add(1)*size - size
				if a >= hi {
					return
				}
				for i := a; i < min(a+size, hi) && running(); i++ {
					t0 := time.Now()
					n, err := do(ctx, w, i)
					w.lat = append(w.lat, int64(time.Since(t0)))
					done.Add(1)
					if err != nil {
						errs.Add(1)
						firstErr.CompareAndSwap(nil, &err)
						continue
					}
					rows.Add(n)
				}
			}
		})
	}
	wg.Wait()
	s := sample{ops: done.Load() - errs.Load(), rows: rows.Load(), errors: errs.Load(), elapsed: time.Since(start), capped: capped.Load()}
	if p := firstErr.Load(); p != nil {
		s.err = *p
	}
	stop()
	return s
}

// startProgress prints label's progress every second until stopped.
func (r *runner) startProgress(label string, base, total int64, done *atomic.Int64) func() {
	if r.progress == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last, lastT := int64(0), time.Now()
		for {
			select {
			case <-quit:
				fmt.Fprintf(r.progress, "\r%-78s\r", "")
				return
			case now := <-tick.C:
				d := done.Load()
				fmt.Fprintf(r.progress, "\r%-40s %12s/%s  %10s/s ", label, rate(float64(base+d)), rate(float64(total)),
					rate(float64(d-last)/now.Sub(lastT).Seconds()))
				last, lastT = d, now
			}
		}
	})
	return func() { close(quit); wg.Wait() }
}

// load writes rows [0, n) of table with MutateRows batches, untimed.
func (r *runner) load(ctx context.Context, t *target, table string, row rowMaker, n int64) error {
	ws := make([]*worker, r.cfg.Clients)
	for c := range ws {
		ws[c] = newWorker(r, t, c)
		ws[c].paper = t.data.Open(table)
	}
	b := int64(r.cfg.Batch)
	nb := (n + b - 1) / b
	s := r.parallel(ctx, ws, fmt.Sprintf("loading %s on %s", table, t.srv.Label), 0, nb, nb, time.Time{},
		func(ctx context.Context, w *worker, i int64) (int64, error) {
			return 0, w.writeBatch(ctx, w.paper, row, i*b, min(i*b+b, n))
		})
	if s.err != nil {
		return fmt.Errorf("load %s: %w", table, s.err)
	}
	return ctx.Err()
}
