package sstable

import (
	"bytes"
	"encoding/binary"

	"github.com/tabuladb/tabula/internal/base"
)

// blockIter walks the entries of one decoded block. Moving backwards decodes
// one restart interval forward into a reusable stack of entries, then pops
// them. It never panics on malformed blocks: it stops and reports a
// corruption error instead.
type blockIter struct {
	data        []byte
	restartsOff int // end of the entries, start of the restart array
	numRestarts int
	off, next   int // current entry and the one after it
	valid       bool
	key         []byte
	val         []byte
	stack       []stackEntry // entries just before off, in order
	arena       []byte       // keys of stack entries
	err         error
	file        string
	blockOff    int64
}

type stackEntry struct {
	off, next int
	ks, ke    int
	val       []byte
}

// init points the iterator at block data, stored at blockOff in file.
func (i *blockIter) init(data []byte, file string, blockOff int64) error {
	*i = blockIter{key: i.key[:0], stack: i.stack[:0], arena: i.arena[:0], file: file, blockOff: blockOff}
	if len(data) < 4 {
		return i.corrupt("block of %d bytes is too short", len(data))
	}
	n := binary.LittleEndian.Uint32(data[len(data)-4:])
	if uint64(n) > uint64(len(data)-4)/4 {
		return i.corrupt("block claims %d restart points in %d bytes", n, len(data))
	}
	i.data = data
	i.numRestarts = int(n)
	i.restartsOff = len(data) - 4 - 4*int(n)
	if (n == 0) != (i.restartsOff == 0) {
		return i.corrupt("block has %d restart points for %d bytes of entries", n, i.restartsOff)
	}
	if n > 0 && binary.LittleEndian.Uint32(data[i.restartsOff:]) != 0 {
		return i.corrupt("first restart point is not at 0")
	}
	return nil
}

func (i *blockIter) corrupt(format string, args ...any) error {
	i.valid = false
	if i.err == nil {
		i.err = base.Corruptf(i.file, i.blockOff, "sstable: "+format, args...)
	}
	return i.err
}

// restart returns the offset of restart point r, or -1 if it is out of range.
func (i *blockIter) restart(r int) int {
	off := binary.LittleEndian.Uint32(i.data[i.restartsOff+4*r:])
	if uint64(off) >= uint64(i.restartsOff) {
		i.corrupt("restart point %d at %d is past the entries", r, off)
		return -1
	}
	return int(off)
}

func (i *blockIter) uvarint(p int) (uint64, int) {
	if p < i.restartsOff && i.data[p] < 0x80 {
		return uint64(i.data[p]), p + 1
	}
	if p >= i.restartsOff {
		return 0, -1
	}
	v, n := binary.Uvarint(i.data[p:i.restartsOff])
	if n <= 0 {
		return 0, -1
	}
	return v, p + n
}

// entryHeader parses the three varints at off.
func (i *blockIter) entryHeader(off int) (shared, unshared, vlen uint64, p int) {
	shared, p = i.uvarint(off)
	if p < 0 {
		return
	}
	unshared, p = i.uvarint(p)
	if p < 0 {
		return
	}
	vlen, p = i.uvarint(p)
	if p >= 0 && (unshared > uint64(i.restartsOff-p) || vlen > uint64(i.restartsOff-p)-unshared) {
		p = -1
	}
	return
}

// decodeAt makes the entry at off current; i.key must hold its predecessor.
func (i *blockIter) decodeAt(off int) bool {
	shared, unshared, vlen, p := i.entryHeader(off)
	if p < 0 || shared > uint64(len(i.key)) {
		i.corrupt("malformed entry at block offset %d", off)
		return false
	}
	ke := p + int(unshared)
	i.key = append(i.key[:shared], i.data[p:ke]...)
	i.val = i.data[ke : ke+int(vlen) : ke+int(vlen)]
	i.off, i.next, i.valid = off, ke+int(vlen), true
	return true
}

// restartKey returns the whole key stored at restart point r.
func (i *blockIter) restartKey(r int) ([]byte, bool) {
	off := i.restart(r)
	if off < 0 {
		return nil, false
	}
	shared, unshared, _, p := i.entryHeader(off)
	if p < 0 || shared != 0 {
		i.corrupt("malformed restart entry at block offset %d", off)
		return nil, false
	}
	return i.data[p : p+int(unshared)], true
}

func (i *blockIter) first() bool {
	i.stack = i.stack[:0]
	i.key = i.key[:0]
	if i.err != nil || i.restartsOff == 0 {
		i.valid = false
		return false
	}
	return i.decodeAt(0)
}

func (i *blockIter) nextEntry() bool {
	if !i.valid {
		return false
	}
	i.stack = i.stack[:0]
	if i.next >= i.restartsOff {
		i.valid = false
		return false
	}
	return i.decodeAt(i.next)
}

// seekGE moves to the first entry with key ≥ target.
func (i *blockIter) seekGE(target []byte) bool {
	i.stack = i.stack[:0]
	i.valid = false
	if i.err != nil || i.restartsOff == 0 {
		return false
	}
	lo, hi := 0, i.numRestarts // first restart whose key is ≥ target
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		k, ok := i.restartKey(mid)
		if !ok {
			return false
		}
		if bytes.Compare(k, target) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	off := i.restart(max(lo-1, 0))
	if off < 0 {
		return false
	}
	i.key = i.key[:0]
	for ok := i.decodeAt(off); ok; ok = i.nextEntry() {
		if bytes.Compare(i.key, target) >= 0 {
			return true
		}
	}
	return false
}

// seekLT moves to the last entry with key < target.
func (i *blockIter) seekLT(target []byte) bool {
	if i.seekGE(target) {
		return i.prevEntry()
	}
	if i.err != nil {
		return false
	}
	return i.last()
}

func (i *blockIter) last() bool {
	i.stack = i.stack[:0]
	i.valid = false
	if i.err != nil || i.restartsOff == 0 {
		return false
	}
	return i.fill(i.restartsOff) && i.pop()
}

func (i *blockIter) prevEntry() bool {
	if !i.valid {
		return false
	}
	if len(i.stack) == 0 {
		if i.off == 0 {
			i.valid = false
			return false
		}
		if !i.fill(i.off) {
			return false
		}
	}
	return i.pop()
}

// fill decodes the restart interval holding the entry that ends at target
// onto the stack.
func (i *blockIter) fill(target int) bool {
	lo, hi := 0, i.numRestarts // first restart at or past target
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		off := i.restart(mid)
		if off < 0 {
			return false
		}
		if off < target {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	off := 0
	if lo > 0 {
		if off = i.restart(lo - 1); off < 0 {
			return false
		}
	}
	i.stack, i.arena, i.key = i.stack[:0], i.arena[:0], i.key[:0]
	for {
		if !i.decodeAt(off) {
			return false
		}
		ks := len(i.arena)
		i.arena = append(i.arena, i.key...)
		i.stack = append(i.stack, stackEntry{off: i.off, next: i.next, ks: ks, ke: len(i.arena), val: i.val})
		if i.next == target {
			return true
		}
		if i.next > target {
			i.corrupt("entries do not line up at block offset %d", target)
			return false
		}
		off = i.next
	}
}

func (i *blockIter) pop() bool {
	e := i.stack[len(i.stack)-1]
	i.stack = i.stack[:len(i.stack)-1]
	i.key = append(i.key[:0], i.arena[e.ks:e.ke]...)
	i.val = e.val
	i.off, i.next, i.valid = e.off, e.next, true
	return true
}
