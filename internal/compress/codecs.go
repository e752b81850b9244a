package compress

import (
	"fmt"
	"strings"
	"sync"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"

	"github.com/tabuladb/tabula/internal/base"
)

// MaxDecodedSize bounds what any codec will produce from one block, so a
// corrupt length field cannot make a reader allocate without limit.
const MaxDecodedSize = 256 << 20

// Lookup returns the codec with the given ID.
func Lookup(id ID) (Codec, error) {
	switch id {
	case None:
		return noneCodec{}, nil
	case Snappy:
		return snappyCodec{}, nil
	case Zstd:
		return zstdCodec{}, nil
	case TwoPass:
		return twoPassCodec{}, nil
	}
	return nil, base.InvalidArgf("compress: unknown codec %d", uint8(id))
}

var names = map[ID]string{None: "none", Snappy: "snappy", Zstd: "zstd", TwoPass: "twopass"}

// String is the codec's name as the shell and the admin API spell it.
func (id ID) String() string {
	if n, ok := names[id]; ok {
		return n
	}
	return fmt.Sprintf("codec(%d)", uint8(id))
}

// Parse reads a codec name: none, snappy, zstd or twopass.
func Parse(s string) (ID, error) {
	for id, n := range names {
		if strings.EqualFold(s, n) {
			return id, nil
		}
	}
	return 0, base.InvalidArgf("compress: unknown codec %q (want none, snappy, zstd or twopass)", s)
}

type noneCodec struct{}

func (noneCodec) ID() ID { return None }

func (noneCodec) Compress(dst, src []byte) []byte { return append(dst[:0], src...) }

func (noneCodec) Decompress(dst, src []byte) ([]byte, error) { return append(dst[:0], src...), nil }

type snappyCodec struct{}

func (snappyCodec) ID() ID { return Snappy }

func (snappyCodec) Compress(dst, src []byte) []byte {
	return snappy.Encode(dst[:cap(dst)], src)
}

func (snappyCodec) Decompress(dst, src []byte) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil || n > MaxDecodedSize {
		return nil, fmt.Errorf("compress: snappy block: bad length: %w", base.ErrCorruption)
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	out, err := snappy.Decode(dst[:cap(dst)], src)
	if err != nil {
		return nil, fmt.Errorf("compress: snappy block: %v: %w", err, base.ErrCorruption)
	}
	return out, nil
}

var zstdState struct {
	once sync.Once
	enc  *zstd.Encoder
	dec  *zstd.Decoder
}

func zstdCoders() (*zstd.Encoder, *zstd.Decoder) {
	zstdState.once.Do(func() {
		// Options are constants; errors are impossible.
		zstdState.enc, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
		zstdState.dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(MaxDecodedSize))
	})
	return zstdState.enc, zstdState.dec
}

type zstdCodec struct{}

func (zstdCodec) ID() ID { return Zstd }

func (zstdCodec) Compress(dst, src []byte) []byte {
	enc, _ := zstdCoders()
	return enc.EncodeAll(src, dst[:0])
}

func (zstdCodec) Decompress(dst, src []byte) ([]byte, error) {
	_, dec := zstdCoders()
	out, err := dec.DecodeAll(src, dst[:0])
	if err != nil {
		return nil, fmt.Errorf("compress: zstd block: %v: %w", err, base.ErrCorruption)
	}
	return out, nil
}
