package commitlog

import (
	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// DefaultSegmentSize is the segment size used when Options.SegmentSize is 0.
const DefaultSegmentSize = 64 << 20

// Options configure a Log.
type Options struct {
	// FS is the file system the log lives on. Required.
	FS vfs.FS
	// Dir is the directory of the segment files; it is created if missing.
	// Required.
	Dir string
	// SegmentSize is the size past which the log rolls to a new segment;
	// 0 means DefaultSegmentSize. A record is never split, so a segment
	// holding a single large record may be bigger.
	SegmentSize int64
}

// Validate reports whether the options are usable.
func (o *Options) Validate() error {
	switch {
	case o.FS == nil:
		return base.InvalidArgf("commitlog: no file system")
	case o.Dir == "":
		return base.InvalidArgf("commitlog: no directory")
	case o.SegmentSize < 0:
		return base.InvalidArgf("commitlog: negative segment size %d", o.SegmentSize)
	}
	return nil
}

func (o *Options) segmentSize() int64 {
	if o.SegmentSize == 0 {
		return DefaultSegmentSize
	}
	return o.SegmentSize
}
