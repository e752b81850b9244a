package sstable

import (
	"encoding/binary"
	"slices"
)

// The Bloom filter block is a bit array followed by one byte holding k, the
// number of probes. A prefix sets or tests the bits (h1 + i*h2) mod m for
// i < k, where h1 and h2 are the low and high halves of its 64-bit hash and m
// is the bit count (double hashing, Kirsch and Mitzenmacher).

const (
	bloomSeed    = 0x9ae16a3b2f90404f
	bloomMaxK    = 30
	bloomMinBits = 64
)

// bloomK is the probe count for bitsPerKey: bitsPerKey·ln 2, at least 1.
func bloomK(bitsPerKey int) int {
	k := int(float64(bitsPerKey) * 0.69)
	return min(max(k, 1), bloomMaxK)
}

// bloomBuilder collects the hashes of the prefixes added to a table or,
// when the number of prefixes is known up front, sets the filter's bits
// directly so that its memory stays the filter's size.
type bloomBuilder struct {
	hashes []uint64
	last   []uint64 // hashes of the previous key, by add-call position
	pos    int

	bits     []byte // presized filter, or nil
	nbits    uint32
	k        int
	distinct int
}

// presize sizes the filter for expected distinct prefixes.
func (b *bloomBuilder) presize(expected, bitsPerKey int) {
	nbytes := (max(expected*bitsPerKey, bloomMinBits) + 7) / 8
	nbytes = min(nbytes, 1<<29-1) // the bit count must fit in a uint32
	b.bits = make([]byte, nbytes+1)
	b.nbits = uint32(nbytes) * 8
	b.k = bloomK(bitsPerKey)
}

// record adds one distinct hash.
func (b *bloomBuilder) record(h uint64) {
	if b.bits == nil {
		b.hashes = append(b.hashes, h)
		return
	}
	b.distinct++
	h1, h2 := uint32(h), uint32(h>>32)
	for i := 0; i < b.k; i++ {
		bit := h1 % b.nbits
		b.bits[bit/8] |= 1 << (bit % 8)
		h1 += h2
	}
}

// startKey begins the prefixes of a new key.
func (b *bloomBuilder) startKey() { b.pos = 0 }

// add records one prefix, skipping it when the previous key added the same
// prefix at the same position (consecutive cells of one row).
func (b *bloomBuilder) add(prefix []byte) {
	h := bloomHash(prefix)
	if b.pos < len(b.last) {
		if b.last[b.pos] != h {
			b.record(h)
		}
		b.last[b.pos] = h
	} else {
		b.record(h)
		b.last = append(b.last, h)
	}
	b.pos++
}

// finish returns the filter block payload and the number of distinct hashes.
func (b *bloomBuilder) finish(bitsPerKey int) ([]byte, int) {
	if b.bits != nil {
		b.bits[len(b.bits)-1] = byte(b.k)
		return b.bits, b.distinct
	}
	slices.Sort(b.hashes)
	b.hashes = slices.Compact(b.hashes)
	nbits := max(len(b.hashes)*bitsPerKey, bloomMinBits)
	nbytes := (nbits + 7) / 8
	nbits = nbytes * 8
	k := bloomK(bitsPerKey)
	filter := make([]byte, nbytes+1)
	for _, h := range b.hashes {
		h1, h2 := uint32(h), uint32(h>>32)
		for i := 0; i < k; i++ {
			bit := h1 % uint32(nbits)
			filter[bit/8] |= 1 << (bit % 8)
			h1 += h2
		}
	}
	filter[nbytes] = byte(k)
	return filter, len(b.hashes)
}

// bloomFilter is a decoded filter block; the zero value matches everything.
type bloomFilter struct {
	bits  []byte
	nbits uint32
	k     int
}

// decodeBloom parses a filter block payload; ok is false if it is malformed.
func decodeBloom(b []byte) (bloomFilter, bool) {
	if len(b) < 2 || uint64(len(b)-1)*8 > 1<<32-8 {
		return bloomFilter{}, false
	}
	k := int(b[len(b)-1])
	if k < 1 || k > bloomMaxK {
		return bloomFilter{}, false
	}
	return bloomFilter{bits: b[:len(b)-1], nbits: uint32(len(b)-1) * 8, k: k}, true
}

func (f *bloomFilter) mayContain(prefix []byte) bool {
	if f.bits == nil {
		return true
	}
	h := bloomHash(prefix)
	h1, h2 := uint32(h), uint32(h>>32)
	for i := 0; i < f.k; i++ {
		bit := h1 % f.nbits
		if f.bits[bit/8]&(1<<(bit%8)) == 0 {
			return false
		}
		h1 += h2
	}
	return true
}

// bloomHash is MurmurHash64A of b with seed bloomSeed.
func bloomHash(b []byte) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := uint64(bloomSeed) ^ uint64(len(b))*m
	for ; len(b) >= 8; b = b[8:] {
		k := binary.LittleEndian.Uint64(b)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	if len(b) > 0 {
		var tail uint64
		for i := len(b) - 1; i >= 0; i-- {
			tail = tail<<8 | uint64(b[i])
		}
		h ^= tail
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}
