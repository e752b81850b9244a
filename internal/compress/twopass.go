package compress

import (
	"encoding/binary"
	"fmt"

	"github.com/tabuladb/tabula/internal/base"
)

// The two-pass codec follows the paper's scheme. The first pass replaces
// long strings that occur earlier in the block with references to them
// (Bentley and McIlroy's long-common-string method: fingerprints of
// aligned chunks, found again with a rolling hash anywhere in the input).
// The second pass runs snappy over the result, which catches the short
// repetitions the first pass leaves alone.
//
// First-pass format: uvarint(decoded length), then ops until the end:
//
//	uvarint(n<<1 | 0) then n literal bytes
//	uvarint(n<<1 | 1) uvarint(distance): copy n bytes from distance back
const lcsChunk = 32

type twoPassCodec struct{}

func (twoPassCodec) ID() ID { return TwoPass }

func (twoPassCodec) Compress(dst, src []byte) []byte {
	first := longStrings(make([]byte, 0, len(src)/2+16), src)
	return snappyCodec{}.Compress(dst, first)
}

func (twoPassCodec) Decompress(dst, src []byte) ([]byte, error) {
	first, err := snappyCodec{}.Decompress(nil, src)
	if err != nil {
		return nil, err
	}
	return expandLongStrings(dst[:0], first)
}

// rollMul is the multiplier of the polynomial rolling hash (mod 2^64).
const rollMul = 0x100000001b3

// rollOut is rollMul^lcsChunk, to remove the byte leaving the window.
var rollOut = func() uint64 {
	p := uint64(1)
	for range lcsChunk {
		p *= rollMul
	}
	return p
}()

func chunkHash(b []byte) uint64 {
	var h uint64
	for _, c := range b {
		h = h*rollMul + uint64(c) + 1
	}
	return h
}

// longStrings is the first pass.
func longStrings(dst, src []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(src)))
	if len(src) < 2*lcsChunk {
		return appendLiteral(dst, src)
	}
	// Table of aligned chunk starts, keyed by fingerprint.
	size := 1
	for size < 2*(len(src)/lcsChunk+1) {
		size <<= 1
	}
	table := make([]int32, size)
	for i := range table {
		table[i] = -1
	}
	mask := uint64(size - 1)
	slot := func(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15 >> 32) & mask }

	lit := 0 // start of pending literal bytes
	h := chunkHash(src[:lcsChunk])
	for i := 0; i+lcsChunk <= len(src); {
		if j := table[slot(h)]; j >= 0 && int(j)+lcsChunk <= i && string(src[j:int(j)+lcsChunk]) == string(src[i:i+lcsChunk]) {
			start, from := i, int(j)
			// Extend backwards into the pending literal, forwards to the end.
			for start > lit && from > 0 && src[start-1] == src[from-1] {
				start--
				from--
			}
			end := i + lcsChunk
			for end < len(src) && src[end] == src[from+end-start] {
				end++
			}
			dst = appendLiteral(dst, src[lit:start])
			dst = binary.AppendUvarint(dst, uint64(end-start)<<1|1)
			dst = binary.AppendUvarint(dst, uint64(start-from))
			// Record the aligned chunks the copy covered, then restart
			// the rolling hash after it.
			for a := (i/lcsChunk + 1) * lcsChunk; a+lcsChunk <= end; a += lcsChunk {
				table[slot(chunkHash(src[a:a+lcsChunk]))] = int32(a)
			}
			lit, i = end, end
			if i+lcsChunk <= len(src) {
				h = chunkHash(src[i : i+lcsChunk])
			}
			continue
		}
		if i%lcsChunk == 0 {
			table[slot(h)] = int32(i)
		}
		if i+lcsChunk < len(src) {
			h = h*rollMul + uint64(src[i+lcsChunk]) + 1 - rollOut*(uint64(src[i])+1)
		}
		i++
	}
	return appendLiteral(dst, src[lit:])
}

func appendLiteral(dst, lit []byte) []byte {
	if len(lit) == 0 {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(len(lit))<<1)
	return append(dst, lit...)
}

// expandLongStrings undoes the first pass, checking every length and
// distance against what has been produced.
func expandLongStrings(dst, src []byte) ([]byte, error) {
	bad := func(what string) ([]byte, error) {
		return nil, fmt.Errorf("compress: two-pass block: %s: %w", what, base.ErrCorruption)
	}
	total, n := binary.Uvarint(src)
	if n <= 0 || total > MaxDecodedSize {
		return bad("bad length")
	}
	src = src[n:]
	if uint64(cap(dst)) < total {
		dst = make([]byte, 0, total)
	}
	for len(src) > 0 {
		op, n := binary.Uvarint(src)
		if n <= 0 {
			return bad("bad op")
		}
		src = src[n:]
		length := op >> 1
		if length > total-uint64(len(dst)) {
			return bad("op past the end")
		}
		if op&1 == 0 {
			if length > uint64(len(src)) {
				return bad("literal past the input")
			}
			dst = append(dst, src[:length]...)
			src = src[length:]
			continue
		}
		dist, n := binary.Uvarint(src)
		if n <= 0 || dist == 0 || dist > uint64(len(dst)) {
			return bad("bad copy distance")
		}
		src = src[n:]
		from := len(dst) - int(dist)
		// The copy may overlap its own output: copy in runs of at most
		// dist bytes, each of which is already written.
		for left := int(length); left > 0; {
			run := min(left, len(dst)-from)
			dst = append(dst, dst[from:from+run]...)
			from += run
			left -= run
		}
	}
	if uint64(len(dst)) != total {
		return bad("short output")
	}
	return dst, nil
}
