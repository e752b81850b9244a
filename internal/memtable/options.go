package memtable

import "fmt"

const (
	// DefaultArenaSize is the ArenaSize used when Options.ArenaSize is 0.
	DefaultArenaSize = 64 << 20
	// MaxArenaSize is the largest ArenaSize the handle encoding supports.
	MaxArenaSize = 4 << 30
)

// Options configure a Memtable.
type Options struct {
	// ArenaSize bounds the bytes of keys, values and nodes the memtable
	// holds. Memory is allocated as it is used, not up front. Default
	// DefaultArenaSize; at most MaxArenaSize.
	ArenaSize int64
	// Seed seeds the generator of tower heights, so that the same adds
	// build the same skiplist. Default 0.
	Seed uint64
}

// Validate reports options out of range.
func (o Options) Validate() error {
	if o.ArenaSize < 0 || o.ArenaSize > MaxArenaSize {
		return fmt.Errorf("memtable: ArenaSize %d outside [0, %d]", o.ArenaSize, int64(MaxArenaSize))
	}
	return nil
}

// arenaSize is ArenaSize with the default applied and clamped to range.
func (o Options) arenaSize() int64 {
	if o.ArenaSize <= 0 {
		return DefaultArenaSize
	}
	return min(o.ArenaSize, MaxArenaSize)
}
