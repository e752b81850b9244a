package tablet

import (
	"bytes"
	"encoding/binary"
	"sort"

	"github.com/tabuladb/tabula/internal/base"
)

// The row cache is the paper's scan cache (§6): the entries a row's
// SSTables hold, merged, for rows read recently. It is keyed by the
// version of the tablet's files as well as the row, and versions never
// change, so it needs no invalidation: writes live in the memtables, which
// every read merges on top, and a flush or compaction makes a new version
// whose rows miss until read again. Old versions' rows age out.

// maxCachedRow bounds the entries of one cached row, in bytes.
const maxCachedRow = 256 << 10

// cachedRow is a row's SSTable entries, in key order.
type cachedRow struct {
	keys, values [][]byte
}

func rowCacheKey(v *version, row []byte) string {
	b := make([]byte, 8, 8+len(row))
	binary.BigEndian.PutUint64(b, v.id)
	return string(append(b, row...))
}

// cachedFiles returns an iterator over the row's entries in the
// snapshot's SSTables, from the row cache or, on a miss, read from the
// files and then cached.
func (t *Tablet) cachedFiles(s *snapshot, row, lower, upper []byte) (base.Iterator, error) {
	key := rowCacheKey(s.vers, row)
	if cr, ok := t.h.rowCache.Get(key); ok {
		return &sliceIter{rows: cr, i: -1}, nil
	}
	its, err := t.fileIters(s, lower, upper, row, false)
	if err != nil {
		return nil, err
	}
	it := newMergingIter(its)
	cr := &cachedRow{}
	size := int64(len(key)) + 64
	for ok := it.First(); ok; ok = it.Next() {
		cr.keys = append(cr.keys, bytes.Clone(it.Key()))
		cr.values = append(cr.values, bytes.Clone(it.Value()))
		size += int64(len(it.Key())+len(it.Value())) + 48
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	if size <= maxCachedRow {
		t.h.rowCache.Set(key, cr, size)
	}
	return &sliceIter{rows: cr, i: -1}, nil
}

// sliceIter iterates over a cached row.
type sliceIter struct {
	rows *cachedRow
	i    int
}

func (s *sliceIter) valid() bool { return s.i >= 0 && s.i < len(s.rows.keys) }

func (s *sliceIter) SeekGE(key []byte) bool {
	s.i = sort.Search(len(s.rows.keys), func(i int) bool { return bytes.Compare(s.rows.keys[i], key) >= 0 })
	return s.valid()
}

func (s *sliceIter) SeekLT(key []byte) bool {
	s.i = sort.Search(len(s.rows.keys), func(i int) bool { return bytes.Compare(s.rows.keys[i], key) >= 0 }) - 1
	return s.valid()
}

func (s *sliceIter) First() bool { s.i = 0; return s.valid() }
func (s *sliceIter) Last() bool  { s.i = len(s.rows.keys) - 1; return s.valid() }

func (s *sliceIter) Next() bool {
	if s.valid() {
		s.i++
	}
	return s.valid()
}

func (s *sliceIter) Prev() bool {
	if s.valid() {
		s.i--
	}
	return s.valid()
}

func (s *sliceIter) Key() []byte   { return s.rows.keys[s.i] }
func (s *sliceIter) Value() []byte { return s.rows.values[s.i] }
func (s *sliceIter) Error() error  { return nil }
func (s *sliceIter) Close() error  { return nil }
