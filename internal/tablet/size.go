package tablet

import (
	"bytes"
	"errors"
	"slices"

	"github.com/tabuladb/tabula/internal/base"
)

// Sizes come from the SSTables' block indexes alone: no data block is
// read to estimate a tablet's size, pick its split key or sample a table.

// ApproximateSize is the stored size in bytes of the tablet's SSTables
// within its range: a file shared with a former sibling of a split counts
// only for the blocks that hold the tablet's rows. Memtables do not count.
func (t *Tablet) ApproximateSize() int64 {
	vers := t.acquireVersion()
	if vers == nil {
		return 0
	}
	defer vers.unref()
	var n int64
	for _, f := range vers.files() {
		r, err := t.h.reader(f)
		if err != nil {
			continue
		}
		if t.owns(f) {
			n += int64(r.Properties().DataSize)
			continue
		}
		end := r.Properties().DataSize
		if t.upper != nil {
			end = r.ApproximateOffset(t.upper)
		}
		if begin := r.ApproximateOffset(t.lower); end > begin {
			n += int64(end - begin)
		}
	}
	return n
}

// acquireVersion returns the tablet's current version, referenced, or nil
// once the tablet is retired.
func (t *Tablet) acquireVersion() *version {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.vers == nil {
		return nil
	}
	t.vers.ref()
	return t.vers
}

// sizePoint is a data block of one of a tablet's SSTables: the row of its
// last key and its stored size. Blocks whose last key lies past the
// tablet's range have a nil row.
type sizePoint struct {
	row  []byte
	size int64
}

// sizePoints lists the data blocks of the tablet's SSTables that may hold
// its rows, ordered by row.
func (t *Tablet) sizePoints() []sizePoint {
	vers := t.acquireVersion()
	if vers == nil {
		return nil
	}
	defer vers.unref()
	var pts []sizePoint
	for _, f := range vers.files() {
		r, err := t.h.reader(f)
		if err != nil {
			continue
		}
		var prevEnd uint64
		var prevKey []byte
		for _, e := range r.IndexEntries() {
			size := int64(e.End - prevEnd)
			prevEnd = e.End
			inRange := bytes.Compare(e.LastKey, t.lower) >= 0 && (t.upper == nil || prevKey == nil || bytes.Compare(prevKey, t.upper) < 0)
			prevKey = e.LastKey
			if !inRange {
				continue
			}
			p := sizePoint{size: size}
			if t.upper == nil || bytes.Compare(e.LastKey, t.upper) < 0 {
				if k, err := base.Decode(e.LastKey); err == nil {
					p.row = bytes.Clone(k.Row)
				}
			}
			pts = append(pts, p)
		}
	}
	slices.SortStableFunc(pts, func(a, b sizePoint) int {
		switch {
		case a.row == nil && b.row == nil:
			return 0
		case a.row == nil:
			return 1
		case b.row == nil:
			return -1
		}
		return bytes.Compare(a.row, b.row)
	})
	return pts
}

// inside reports whether row is a row key strictly inside the tablet's
// range: a split there leaves both children some rows.
func (t *Tablet) inside(row []byte) bool {
	return row != nil && ValidateRowKey(row) == nil && bytes.Compare(row, t.start) > 0 && (t.end == nil || bytes.Compare(row, t.end) < 0)
}

// splitKey picks the row near the middle of the tablet's data, by the
// block index of its SSTables, to split it at; false if no row strictly
// inside its range will do.
func (t *Tablet) splitKey() ([]byte, bool) {
	pts := t.sizePoints()
	var total int64
	for _, p := range pts {
		total += p.size
	}
	var best []byte
	var bestDist, left int64
	for _, p := range pts {
		// A split at p.row leaves the blocks before this one on the
		// left, to the precision of one block, as ApproximateSize counts.
		before := left
		left += p.size
		if !t.inside(p.row) {
			continue
		}
		d := max(total/2-before, before-total/2)
		if best == nil || d < bestDist {
			best, bestDist = p.row, d
		}
	}
	return best, best != nil
}

// maybeSplit splits t at the middle of its data when its SSTables have
// outgrown Options.SplitSize, and queues the children to be checked in
// turn.
func (h *Host) maybeSplit(t *Tablet) error {
	if h.opts.SplitSize < 0 || t.isClosed() || t.ApproximateSize() <= h.opts.SplitSize {
		return nil
	}
	at, ok := t.splitKey()
	if !ok {
		return nil
	}
	err := h.Split(t.id, at)
	if errors.Is(err, base.ErrNotFound) {
		return nil // split, merged or deleted in the meantime
	}
	if err != nil {
		return err
	}
	for _, row := range [][]byte{t.start, at} {
		if c, err := h.TabletFor(t.table, row); err == nil {
			h.scheduleCompaction(c)
		}
	}
	return nil
}

// Sample is a row key of a table and the approximate stored size of the
// table's rows before it, for SampleRowKeys (Cloud Bigtable): callers cut
// a table into pieces of about equal size at these keys.
type Sample struct {
	// Row is a row key; empty in the last sample, which stands for the
	// end of the table.
	Row []byte
	// Offset is the approximate number of bytes the table's rows before
	// Row take, in SSTables; in the last sample, the table's size.
	Offset int64
}

// sampleInterval is the distance in bytes between the samples
// SampleRowKeys takes within a tablet.
const sampleInterval = 64 << 20

// SampleRowKeys returns row keys of a table in ascending order with
// ascending offsets: one about every 64 MiB of data, every boundary
// between two tablets, and last the empty key with the table's size. It
// reads only the SSTables' block indexes; data in memtables is not counted.
func (h *Host) SampleRowKeys(table string) ([]Sample, error) {
	return h.sampleRowKeys(table, sampleInterval)
}

func (h *Host) sampleRowKeys(table string, every int64) ([]Sample, error) {
	ts, err := h.Tablets(table)
	if err != nil {
		return nil, err
	}
	var out []Sample
	var offset int64
	for _, t := range ts {
		last, since := t.start, int64(0)
		for _, p := range t.sizePoints() {
			offset += p.size
			since += p.size
			if since >= every && t.inside(p.row) && bytes.Compare(p.row, last) > 0 {
				out = append(out, Sample{Row: p.row, Offset: offset})
				last, since = p.row, 0
			}
		}
		if t.end != nil {
			out = append(out, Sample{Row: bytes.Clone(t.end), Offset: offset})
		}
	}
	return append(out, Sample{Row: []byte{}, Offset: offset}), nil
}
