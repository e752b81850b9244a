package sstable

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// indexEntry is one data block: its last key and where it is stored.
type indexEntry struct {
	lastKey []byte
	h       handle
}

// IndexEntry describes one data block for callers that estimate sizes and
// pick split points.
type IndexEntry struct {
	// LastKey is the last key in the block.
	LastKey []byte
	// End is the file offset just past the block.
	End uint64
}

// Reader reads one table. It holds the index, filter and properties in
// memory; data blocks come from the block cache, from the preloaded copy,
// or from the file. A Reader is safe for concurrent use.
type Reader struct {
	br        blockReader
	opts      ReaderOptions
	size      uint64
	index     []indexEntry
	filter    bloomFilter
	props     Properties
	preloaded [][]byte // by data block number when ReaderOptions.Preload
}

// Open reads f's footer, index, filter and properties. The Reader owns f
// from then on and closes it in Close; Open closes f only if it fails.
func Open(f vfs.File, opts ReaderOptions) (*Reader, error) {
	r, err := open(f, opts)
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return r, nil
}

func open(f vfs.File, opts ReaderOptions) (*Reader, error) {
	r := &Reader{br: blockReader{f: f, name: opts.FileName}, opts: opts}
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("sstable: stat %s: %w", opts.FileName, err)
	}
	r.size = uint64(fi.Size())
	if r.size < footerLen {
		return nil, r.br.corrupt(0, "file of %d bytes is shorter than the footer", r.size)
	}
	buf := make([]byte, footerLen)
	if _, err := f.ReadAt(buf, int64(r.size-footerLen)); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("sstable: read footer of %s: %w", opts.FileName, err)
	}
	ft, why := decodeFooter(buf, r.size)
	if why != "" {
		return nil, r.br.corrupt(r.size-footerLen, "%s", why)
	}
	if err := r.readIndex(ft.index); err != nil {
		return nil, err
	}
	if ft.filter.size > 0 {
		b, err := r.br.readFresh(ft.filter)
		if err != nil {
			return nil, err
		}
		var ok bool
		if r.filter, ok = decodeBloom(b); !ok {
			return nil, r.br.corrupt(ft.filter.offset, "malformed filter block")
		}
	}
	b, err := r.br.readFresh(ft.props)
	if err != nil {
		return nil, err
	}
	var ok bool
	if r.props, ok = decodeProperties(b); !ok {
		return nil, r.br.corrupt(ft.props.offset, "malformed properties block")
	}
	if opts.Preload {
		r.preloaded = make([][]byte, len(r.index))
		for i, e := range r.index {
			if r.preloaded[i], err = r.br.readFresh(e.h); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// readIndex loads the index block: one entry per data block, keys strictly
// increasing, blocks in file order without overlap.
func (r *Reader) readIndex(h handle) error {
	b, err := r.br.readFresh(h)
	if err != nil {
		return err
	}
	var it blockIter
	if err := it.init(b, r.opts.FileName, int64(h.offset)); err != nil {
		return err
	}
	var next uint64 // the next block may start no earlier
	for ok := it.first(); ok; ok = it.nextEntry() {
		bh, ok := decodeHandle(it.val)
		if !ok || bh.offset < next || bh.end() > h.offset {
			return r.br.corrupt(h.offset, "malformed index entry %d", len(r.index))
		}
		if n := len(r.index); n > 0 && bytes.Compare(it.key, r.index[n-1].lastKey) <= 0 {
			return r.br.corrupt(h.offset, "index keys out of order at entry %d", n)
		}
		next = bh.end()
		r.index = append(r.index, indexEntry{lastKey: bytes.Clone(it.key), h: bh})
	}
	return it.err
}

// Properties returns the table's properties.
func (r *Reader) Properties() Properties { return r.props }

// Size is the file size in bytes.
func (r *Reader) Size() uint64 { return r.size }

// MayContain reports whether the table may hold a key with this prefix, as
// the writer's FilterPrefixes registered it. Without a filter it is true.
func (r *Reader) MayContain(prefix []byte) bool { return r.filter.mayContain(prefix) }

// ApproximateOffset is the file offset where keys ≥ key begin, to the
// precision of one data block.
func (r *Reader) ApproximateOffset(key []byte) uint64 {
	i := r.findBlock(key)
	if i == len(r.index) {
		return r.props.DataSize
	}
	return r.index[i].h.offset
}

// IndexEntries lists the data blocks in key order.
func (r *Reader) IndexEntries() []IndexEntry {
	out := make([]IndexEntry, len(r.index))
	for i, e := range r.index {
		out[i] = IndexEntry{LastKey: e.lastKey, End: e.h.end()}
	}
	return out
}

// findBlock returns the first data block whose last key is ≥ key.
func (r *Reader) findBlock(key []byte) int {
	return sort.Search(len(r.index), func(i int) bool {
		return bytes.Compare(r.index[i].lastKey, key) >= 0
	})
}

// Close closes the file. Iterators must be closed first.
func (r *Reader) Close() error {
	r.preloaded = nil
	if err := r.br.f.Close(); err != nil {
		return fmt.Errorf("sstable: close %s: %w", r.opts.FileName, err)
	}
	return nil
}

// NewIter returns an iterator over the keys k with lower ≤ k < upper; a nil
// bound is open.
func (r *Reader) NewIter(lower, upper []byte) base.Iterator {
	return &iter{r: r, lower: lower, upper: upper, blk: -1}
}

// NewCompactionIter is NewIter for one pass over the table: blocks not
// in the cache are read into the iterator's own buffers and not cached,
// so that a compaction does not evict the blocks readers use.
func (r *Reader) NewCompactionIter(lower, upper []byte) base.Iterator {
	return &iter{r: r, lower: lower, upper: upper, blk: -1, noFill: true}
}

// loadBlock returns data block i, decoded and verified: the preloaded
// copy, a cached block, or one read into the iterator's own buffers, valid
// until the next load.
func (it *iter) loadBlock(i int) ([]byte, error) {
	r := it.r
	if r.preloaded != nil {
		return r.preloaded[i], nil
	}
	h := r.index[i].h
	if c := r.opts.Cache; c != nil {
		if b, ok := c.Get(r.opts.FileNum, h.offset); ok {
			return b, nil
		}
		if it.noFill {
			return it.readOwn(h)
		}
		b, err := r.br.readFresh(h)
		if err != nil {
			return nil, err
		}
		c.Set(r.opts.FileNum, h.offset, b)
		return b, nil
	}
	return it.readOwn(h)
}

// readOwn reads block h into the iterator's reusable buffers.
func (it *iter) readOwn(h handle) ([]byte, error) {
	var b []byte
	var err error
	b, it.raw, it.dst, err = it.r.br.read(h, it.raw, it.dst)
	return b, err
}
