package tablet

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/tabuladb/tabula/internal/vfs"
)

// Options configure a Host. The zero value of every field but FS and Dir
// means its default.
type Options struct {
	// FS is the file system; required.
	FS vfs.FS
	// Dir is the host's directory; required.
	Dir string
	// MemtableSize is a tablet's memtable budget in bytes; default 64 MiB.
	MemtableSize int64
	// MemtableBudget bounds the memtables of all tablets together, in
	// bytes; past it the host freezes and flushes the largest. Default
	// 4 × MemtableSize.
	MemtableBudget int64
	// MaxFrozenMemtables is how many frozen memtables a tablet may hold
	// before writers wait for a flush; default 2.
	MaxFrozenMemtables int
	// MaxFilesPerGroup is how many SSTables a locality group of a tablet
	// may hold before a merging compaction; default 6.
	MaxFilesPerGroup int
	// BlockCacheSize bounds the block cache shared by all tablets, in
	// bytes; default 256 MiB.
	BlockCacheSize int64
	// RowCacheSize bounds the row cache shared by all tablets (the paper's
	// scan cache: the SSTable entries of rows read recently), in bytes;
	// default 0, no row cache.
	RowCacheSize int64
	// SplitSize is the size of a tablet's SSTables (within its range) past
	// which the host splits it in the background, at a row near the
	// middle of its data (paper §5.3); default 128 MiB, negative disables.
	SplitSize int64
	// LogSegmentSize is the commit log's segment size; default 64 MiB.
	LogSegmentSize int64
	// Clock returns the time; default time.Now.
	Clock func() time.Time
	// Seed seeds the host's randomness (memtable towers); default from the
	// clock.
	Seed uint64
	// Logger receives background errors; default slog.Default().
	Logger *slog.Logger
	// TestingKnobs are hooks for tests.
	TestingKnobs TestingKnobs
}

// TestingKnobs let tests steer a host.
type TestingKnobs struct {
	// DisableBackground stops the host from flushing and compacting on its
	// own; Flush, Compact and writes that fill memtables still work.
	DisableBackground bool
	// OnMajorCompaction is called after a major compaction of a group of
	// t installed its output, with the time its GC rules were applied at.
	OnMajorCompaction func(t *Tablet, group string, now int64)
}

// Validate checks the options.
func (o *Options) Validate() error {
	if o.FS == nil || o.Dir == "" {
		return fmt.Errorf("tablet: options need FS and Dir")
	}
	if o.MemtableSize < 0 || o.MemtableBudget < 0 || o.MaxFrozenMemtables < 0 || o.MaxFilesPerGroup < 0 || o.BlockCacheSize < 0 || o.RowCacheSize < 0 || o.LogSegmentSize < 0 {
		return fmt.Errorf("tablet: negative size in options")
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.MemtableSize == 0 {
		o.MemtableSize = 64 << 20
	}
	if o.MemtableBudget == 0 {
		o.MemtableBudget = 4 * o.MemtableSize
	}
	if o.MaxFrozenMemtables == 0 {
		o.MaxFrozenMemtables = 2
	}
	if o.MaxFilesPerGroup == 0 {
		o.MaxFilesPerGroup = 6
	}
	if o.BlockCacheSize == 0 {
		o.BlockCacheSize = 256 << 20
	}
	if o.SplitSize == 0 {
		o.SplitSize = 128 << 20
	}
	if o.LogSegmentSize == 0 {
		o.LogSegmentSize = 64 << 20
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
