package commitlog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
)

// FuzzRecordDecode reads arbitrary bytes as a segment. It must not panic,
// every failure must be a corruption error at an offset inside the segment,
// and the records read must lie wholly inside it, in order.
func FuzzRecordDecode(f *testing.F) {
	seg := appendHeader(nil, 1)
	for _, rec := range []string{"", "a", "hello, log"} {
		seg = appendFrame(seg, []byte(rec))
	}
	f.Add(seg)
	f.Add(seg[:len(seg)-3])
	f.Add(append(append([]byte(nil), seg...), make([]byte, 20)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		var seg uint64 = 1
		if len(data) >= headerLen {
			seg = binary.LittleEndian.Uint64(data[12:20])
		}
		r := newSegmentReader("fuzz", bytes.NewReader(data), int64(len(data)))
		err := r.readHeader(seg)
		last := int64(-1)
		for err == nil {
			var off int64
			var rec []byte
			off, rec, err = r.next()
			if err == nil {
				if off <= last || off+frameHeaderLen+int64(len(rec)) > int64(len(data)) {
					t.Fatalf("record at %d of %d bytes out of place", off, len(rec))
				}
				last = off
			}
		}
		if err == io.EOF {
			return
		}
		var ce *base.CorruptionError
		if !errors.As(err, &ce) || ce.Offset < 0 || ce.Offset > int64(len(data)) || r.frame != ce.Offset {
			t.Fatalf("error %v, frame %d", err, r.frame)
		}
	})
}
