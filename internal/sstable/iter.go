package sstable

import "bytes"

// iter walks a table: a position in the in-memory index and a blockIter in
// the data block there. It honours the bounds [lower, upper).
type iter struct {
	r            *Reader
	lower, upper []byte
	blk          int // data block loaded into bi, or -1
	bi           blockIter
	raw, dst     []byte // scratch for blocks read without a cache
	valid        bool
	err          error
	noFill       bool // read uncached blocks without caching them
}

// load makes data block i current in bi.
func (it *iter) load(i int) bool {
	if it.err != nil {
		return false
	}
	if i == it.blk {
		return true
	}
	it.blk = -1
	b, err := it.loadBlock(i)
	if err == nil {
		err = it.bi.init(b, it.r.opts.FileName, int64(it.r.index[i].h.offset))
	}
	if err != nil {
		it.err = err
		return false
	}
	it.blk = i
	return true
}

// settle records the outcome of a blockIter move and applies the bounds.
func (it *iter) settle(ok bool) bool {
	if !ok {
		if it.bi.err != nil && it.err == nil {
			it.err = it.bi.err
		}
		it.valid = false
		return false
	}
	k := it.bi.key
	it.valid = (it.upper == nil || bytes.Compare(k, it.upper) < 0) &&
		(it.lower == nil || bytes.Compare(k, it.lower) >= 0)
	return it.valid
}

func (it *iter) SeekGE(key []byte) bool {
	if it.lower != nil && bytes.Compare(key, it.lower) < 0 {
		key = it.lower
	}
	for i := it.r.findBlock(key); i < len(it.r.index); i++ {
		if !it.load(i) {
			return it.settle(false)
		}
		if it.bi.seekGE(key) {
			return it.settle(true)
		}
		if it.bi.err != nil {
			return it.settle(false)
		}
	}
	return it.settle(false)
}

func (it *iter) SeekLT(key []byte) bool {
	if it.upper != nil && bytes.Compare(key, it.upper) > 0 {
		key = it.upper
	}
	i := it.r.findBlock(key)
	if i < len(it.r.index) {
		if !it.load(i) {
			return it.settle(false)
		}
		if it.bi.seekLT(key) {
			return it.settle(true)
		}
		if it.bi.err != nil {
			return it.settle(false)
		}
	}
	return it.lastFrom(min(i, len(it.r.index)) - 1)
}

// lastFrom moves to the last entry of block i or, if it has none, of the
// blocks before it.
func (it *iter) lastFrom(i int) bool {
	for ; i >= 0; i-- {
		if !it.load(i) {
			return it.settle(false)
		}
		if it.bi.last() {
			return it.settle(true)
		}
		if it.bi.err != nil {
			return it.settle(false)
		}
	}
	return it.settle(false)
}

// firstFrom moves to the first entry of block i or of the blocks after it.
func (it *iter) firstFrom(i int) bool {
	for ; i < len(it.r.index); i++ {
		if !it.load(i) {
			return it.settle(false)
		}
		if it.bi.first() {
			return it.settle(true)
		}
		if it.bi.err != nil {
			return it.settle(false)
		}
	}
	return it.settle(false)
}

func (it *iter) First() bool {
	if it.lower != nil {
		return it.SeekGE(it.lower)
	}
	return it.firstFrom(0)
}

func (it *iter) Last() bool {
	if it.upper != nil {
		return it.SeekLT(it.upper)
	}
	return it.lastFrom(len(it.r.index) - 1)
}

func (it *iter) Next() bool {
	if !it.valid {
		return false
	}
	if it.bi.nextEntry() {
		return it.settle(true)
	}
	if it.bi.err != nil {
		return it.settle(false)
	}
	return it.firstFrom(it.blk + 1)
}

func (it *iter) Prev() bool {
	if !it.valid {
		return false
	}
	if it.bi.prevEntry() {
		return it.settle(true)
	}
	if it.bi.err != nil {
		return it.settle(false)
	}
	return it.lastFrom(it.blk - 1)
}

func (it *iter) Key() []byte   { return it.bi.key }
func (it *iter) Value() []byte { return it.bi.val }
func (it *iter) Error() error  { return it.err }

func (it *iter) Close() error {
	err := it.err
	it.raw, it.dst, it.bi = nil, nil, blockIter{}
	it.valid, it.blk = false, -1
	return err
}
