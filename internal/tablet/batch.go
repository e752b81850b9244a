package tablet

import (
	"errors"
	"slices"

	"github.com/tabuladb/tabula/internal/base"
)

// RowMutation is one entry of a batch: a row and its mutations.
type RowMutation struct {
	Row       []byte
	Mutations []base.Mutation
}

// ApplyBatch applies each entry atomically on its own, as Apply does, and
// returns one error per entry, nil where the entry was applied. The
// entries of one tablet go to the commit log together and wait for one
// sync, so a batch costs about what one row does.
func (h *Host) ApplyBatch(name string, rows []RowMutation) []error {
	errs := make([]error, len(rows))
	todo := make([]int, 0, len(rows))
	for i := range rows {
		if errs[i] = ValidateRowKey(rows[i].Row); errs[i] == nil {
			todo = append(todo, i)
		}
	}
	for len(todo) > 0 {
		var again []int
		for _, g := range h.groupByTablet(name, rows, todo, errs) {
			unavailable := g.t.applyGroup(rows, g.idx, errs)
			if len(unavailable) > 0 && g.t.isClosed() && !h.isClosed() {
				// The tablet split or moved under the batch: route again.
				again = append(again, unavailable...)
			}
		}
		todo = again
	}
	return errs
}

// tabletGroup is the entries of a batch that one tablet holds.
type tabletGroup struct {
	t   *Tablet
	idx []int
}

// groupByTablet sorts the entries idx by the tablet that holds their row,
// in the order tablets are first met; an entry whose tablet cannot be
// found gets its error.
func (h *Host) groupByTablet(name string, rows []RowMutation, idx []int, errs []error) []tabletGroup {
	var groups []tabletGroup
	for _, i := range idx {
		t, err := h.TabletFor(name, rows[i].Row)
		if err != nil {
			errs[i] = err
			continue
		}
		k := slices.IndexFunc(groups, func(g tabletGroup) bool { return g.t == t })
		if k < 0 {
			k = len(groups)
			groups = append(groups, tabletGroup{t: t})
		}
		groups[k].idx = append(groups[k].idx, i)
	}
	return groups
}

// applyGroup applies entries idx of rows, all in t, setting their errors.
// It returns the entries that failed because t closed under them.
func (t *Tablet) applyGroup(rows []RowMutation, idx []int, errs []error) []int {
	locks := t.lockRows(rows, idx)
	schema := t.Schema()
	var ok []int
	var valid []RowMutation
	for _, i := range idx {
		if err := t.validate(schema, rows[i].Row, rows[i].Mutations); err != nil {
			errs[i] = err
			continue
		}
		ok = append(ok, i)
		valid = append(valid, RowMutation{Row: rows[i].Row, Mutations: t.resolveTimestamps(schema, rows[i].Mutations)})
	}
	if len(ok) == 0 {
		unlockRows(locks)
		return nil
	}
	w, err := t.reserve(valid)
	if err == nil {
		for _, l := range locks {
			l.last = w.apply.last
		}
	}
	unlockRows(locks)
	if err == nil {
		err = w.commit()
	}
	for _, i := range ok {
		errs[i] = err
	}
	if errors.Is(err, base.ErrUnavailable) {
		return ok
	}
	return nil
}

// lockRows takes the row locks of entries idx, in stripe order so that
// batches cannot deadlock, each stripe once, and returns them.
func (t *Tablet) lockRows(rows []RowMutation, idx []int) []*rowLock {
	stripes := make([]int, 0, len(idx))
	for _, i := range idx {
		stripes = append(stripes, t.rowStripe(rows[i].Row))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	locks := make([]*rowLock, len(stripes))
	for k, s := range stripes {
		locks[k] = &t.rowLocks[s]
		locks[k].Lock()
	}
	return locks
}

func unlockRows(locks []*rowLock) {
	for _, l := range locks {
		l.Unlock()
	}
}
