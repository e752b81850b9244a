package commitlog

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/tabuladb/tabula/internal/vfs"

	"github.com/tabuladb/tabula/internal/base"
)

// writeSegment writes recs to a fresh log in dir and returns their entries;
// they all land in segment 1.
func writeSegment(t *testing.T, dir string, recs []string) []entry {
	t.Helper()
	l := openLog(t, Options{Dir: dir})
	want := appendAll(t, l, recs...)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return want
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// recoverDir writes seg as segment 1 of a new directory, opens the log and
// returns what it replays.
func recoverDir(t *testing.T, seg []byte) ([]entry, error) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, segmentName(1)), seg)
	l, err := Open(Options{FS: vfs.NewOS(), Dir: dir})
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return replayAll(t, l, Pos{}), nil
}

func prefixEndingBy(want []entry, end int64) []entry {
	var out []entry
	for _, e := range want {
		if e.pos.Offset+frameHeaderLen+int64(len(e.rec)) <= end {
			out = append(out, e)
		}
	}
	return out
}

// A crash while the last batch was being written leaves a torn tail: Open
// cuts it, and replay yields exactly the records before the cut.
func TestTornTail(t *testing.T) {
	src := t.TempDir()
	want := writeSegment(t, src, records(12, "torn"))
	full := readFile(t, filepath.Join(src, segmentName(1)))
	for cut := want[len(want)-3].pos.Offset; cut < int64(len(full)); cut++ {
		got, err := recoverDir(t, full[:cut])
		if err != nil {
			t.Fatalf("cut at %d: Open: %v", cut, err)
		}
		checkEntries(t, got, prefixEndingBy(want, cut))
	}
	for cut := int64(0); cut < headerLen; cut++ {
		got, err := recoverDir(t, full[:cut])
		if err != nil || len(got) != 0 {
			t.Fatalf("header cut at %d: %v, %d records", cut, err, len(got))
		}
	}
}

func TestTornTailShapes(t *testing.T) {
	src := t.TempDir()
	want := writeSegment(t, src, records(8, "shape"))
	full := readFile(t, filepath.Join(src, segmentName(1)))
	last := want[len(want)-1].pos.Offset

	flipped := append([]byte(nil), full...)
	flipped[len(flipped)-1] ^= 0x40
	zeros := append(append([]byte(nil), full...), make([]byte, 5000)...)
	zeroFrame := append(append([]byte(nil), full[:last]...), make([]byte, 300)...)
	cases := map[string]struct {
		seg  []byte
		want []entry
	}{
		"checksum of final frame": {flipped, want[:len(want)-1]},
		"zeros to the end":        {zeros, want},
		"zeros over the last":     {zeroFrame, want[:len(want)-1]},
		"all zeros":               {make([]byte, 100), nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			seg := filepath.Join(dir, segmentName(1))
			writeFile(t, seg, c.seg)
			l := openLog(t, Options{Dir: dir})
			checkEntries(t, replayAll(t, l, Pos{}), c.want)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if c.want != nil {
				end := c.want[len(c.want)-1].pos.Offset + frameHeaderLen + int64(len(c.want[len(c.want)-1].rec))
				if size := int64(len(readFile(t, seg))); size != end {
					t.Fatalf("segment has %d bytes after recovery, want %d", size, end)
				}
			}
		})
	}
}

func checkCorruption(t *testing.T, err error, file string, off int64) {
	t.Helper()
	var ce *base.CorruptionError
	if !errors.As(err, &ce) || !errors.Is(err, base.ErrCorruption) {
		t.Fatalf("error %v is not a corruption error", err)
	}
	if ce.File != file || ce.Offset != off {
		t.Fatalf("corruption at %s:%d, want %s:%d", ce.File, ce.Offset, file, off)
	}
}

// A bad record followed by valid data is not a torn write: it is
// corruption, reported with the file and offset.
func TestCorruptMiddleOfLastSegment(t *testing.T) {
	src := t.TempDir()
	want := writeSegment(t, src, records(8, "mid"))
	full := readFile(t, filepath.Join(src, segmentName(1)))
	bad := want[3].pos.Offset
	full[bad+frameHeaderLen+1] ^= 1
	dir := t.TempDir()
	name := filepath.Join(dir, segmentName(1))
	writeFile(t, name, full)
	_, err := Open(Options{FS: vfs.NewOS(), Dir: dir})
	checkCorruption(t, err, name, bad)
	if got := readFile(t, name); len(got) != len(full) {
		t.Fatalf("Open changed a corrupt segment: %d bytes, was %d", len(got), len(full))
	}
}

// A bad length that runs past the end of the segment is not a torn frame
// when valid frames follow it.
func TestCorruptLengthInLastSegment(t *testing.T) {
	dir := t.TempDir()
	want := writeSegment(t, dir, records(8, "len"))
	name := filepath.Join(dir, segmentName(1))
	b := readFile(t, name)
	bad := want[5].pos.Offset
	b[bad+2] ^= 0x10
	writeFile(t, name, b)
	_, err := Open(Options{FS: vfs.NewOS(), Dir: dir})
	checkCorruption(t, err, name, bad)
}

// Open checks only the headers of segments before the last; Replay finds
// a bad record in them.
func TestCorruptEarlierSegment(t *testing.T) {
	dir := t.TempDir()
	want := writeSegment(t, dir, records(8, "mid"))
	openLog(t, Options{Dir: dir}).Close() // segment 1 is no longer the last
	name := filepath.Join(dir, segmentName(1))
	b := readFile(t, name)
	bad := want[5].pos.Offset
	b[bad+2] ^= 0x10 // the length field
	writeFile(t, name, b)
	l := openLog(t, Options{Dir: dir})
	defer l.Close()
	n := 0
	err := l.Replay(Pos{}, func(Pos, []byte) error { n++; return nil })
	checkCorruption(t, err, name, bad)
	if n != 5 {
		t.Fatalf("replayed %d records before the bad one, want 5", n)
	}
}

func TestBadHeader(t *testing.T) {
	dir := t.TempDir()
	writeSegment(t, dir, records(3, "h"))
	name := filepath.Join(dir, segmentName(1))
	b := readFile(t, name)
	b[13] ^= 1 // segment number
	writeFile(t, name, b)
	_, err := Open(Options{FS: vfs.NewOS(), Dir: dir})
	checkCorruption(t, err, name, 0)

	// Before the last segment too.
	b[13] ^= 1
	writeFile(t, name, b)
	openLog(t, Options{Dir: dir}).Close()
	b[13] ^= 1
	writeFile(t, name, b)
	_, err = Open(Options{FS: vfs.NewOS(), Dir: dir})
	checkCorruption(t, err, name, 0)
}

// A last segment whose whole header names a format this reader does not
// know is corruption, kept for the operator, even with no frames after it:
// only a header cut short or never written is a torn tail.
func TestUnknownVersionKept(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, segmentName(1))
	h := appendHeader(nil, 1)
	h[8] = 9 // version
	binary.LittleEndian.PutUint32(h[20:], crc32.Checksum(h[:20], castagnoli))
	writeFile(t, name, append(h, make([]byte, 100)...))
	_, err := Open(Options{FS: vfs.NewOS(), Dir: dir})
	checkCorruption(t, err, name, 0)
	if got := readFile(t, name); len(got) != headerLen+100 {
		t.Fatalf("Open changed the segment: %d bytes", len(got))
	}
}

// A crash while writing in place leaves the last batch cut short and the
// zeros laid out past it: Open cuts both, and replay yields exactly the
// records before the cut.
func TestTornTailInPlace(t *testing.T) {
	src := t.TempDir()
	want := writeSegment(t, src, records(12, "torn"))
	full := readFile(t, filepath.Join(src, segmentName(1)))
	for cut := want[len(want)-3].pos.Offset; cut <= int64(len(full)); cut++ {
		seg := append(full[:cut:cut], make([]byte, 3000)...)
		got, err := recoverDir(t, seg)
		if err != nil {
			t.Fatalf("cut at %d: Open: %v", cut, err)
		}
		// A record whose cut-off bytes were zeros is whole again.
		whole := cut
		for whole < int64(len(full)) && full[whole] == 0 {
			whole++
		}
		checkEntries(t, got, prefixEndingBy(want, whole))
	}
}
