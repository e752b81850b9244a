package commitlog

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/tabuladb/tabula/internal/vfs"
)

// segmentName is the file name of segment seg: six or more digits, then
// ".log".
func segmentName(seg uint64) string { return fmt.Sprintf("%06d.log", seg) }

// parseSegmentName returns the segment number a file name stands for.
func parseSegmentName(name string) (uint64, bool) {
	digits, ok := strings.CutSuffix(name, ".log")
	if !ok {
		return 0, false
	}
	seg, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || seg == 0 || segmentName(seg) != name {
		return 0, false
	}
	return seg, true
}

// listSegments returns the numbers of the segment files in dir, ascending.
// Other files are ignored.
func listSegments(fs vfs.FS, dir string) ([]uint64, error) {
	names, err := fs.List(dir)
	if err != nil {
		return nil, fmt.Errorf("commitlog: list %s: %w", dir, err)
	}
	var segs []uint64
	for _, name := range names {
		if seg, ok := parseSegmentName(name); ok {
			segs = append(segs, seg)
		}
	}
	slices.Sort(segs)
	return segs, nil
}

func (l *Log) segmentPath(seg uint64) string { return path.Join(l.dir, segmentName(seg)) }

// createSegment creates segment seg, writes its header and syncs the
// directory so the file survives a crash; the caller syncs the file.
func (l *Log) createSegment(seg uint64) (vfs.File, error) {
	name := l.segmentPath(seg)
	f, err := l.fs.Create(name)
	if err != nil {
		return nil, fmt.Errorf("commitlog: create %s: %w", name, err)
	}
	if _, err := f.Write(appendHeader(nil, seg)); err != nil {
		f.Close()
		return nil, fmt.Errorf("commitlog: write %s: %w", name, err)
	}
	if err := l.syncDir(); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (l *Log) syncDir() error {
	d, err := l.fs.OpenDir(l.dir)
	if err != nil {
		return fmt.Errorf("commitlog: open dir %s: %w", l.dir, err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("commitlog: sync dir %s: %w", l.dir, err)
	}
	return nil
}
