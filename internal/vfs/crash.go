package vfs

import (
	"maps"
	"math/rand/v2"
	"slices"
)

// Hooks are called around every File.Sync and directory Sync of a MemFS,
// with the synced path, and without any MemFS lock held: a hook may call
// CrashClone on the same MemFS.
type Hooks struct {
	// BeforeSync runs before the sync takes effect.
	BeforeSync func(name string)
	// AfterSync runs after the sync took effect.
	AfterSync func(name string)
}

// SetHooks installs h, replacing earlier hooks. The zero Hooks removes them.
func (fs *MemFS) SetHooks(h Hooks) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.hooks = h
}

// UnsyncedMode says what a crash clone keeps of the bytes written to a file
// since its last sync.
type UnsyncedMode int

const (
	// DropUnsynced keeps none of them.
	DropUnsynced UnsyncedMode = iota
	// KeepSomeUnsynced keeps a random-length prefix of them.
	KeepSomeUnsynced
	// KeepAllUnsynced keeps all of them.
	KeepAllUnsynced
)

// String names the mode.
func (m UnsyncedMode) String() string {
	switch m {
	case DropUnsynced:
		return "drop-unsynced"
	case KeepSomeUnsynced:
		return "keep-some-unsynced"
	case KeepAllUnsynced:
		return "keep-all-unsynced"
	}
	return "unknown-unsynced-mode"
}

// CrashCloneOptions configure CrashClone.
type CrashCloneOptions struct {
	// UnsyncedData says what survives of unsynced file contents. Default
	// DropUnsynced.
	UnsyncedData UnsyncedMode
	// Rand picks the prefixes KeepSomeUnsynced keeps. Default: a generator
	// with a fixed seed.
	Rand *rand.Rand
}

// CrashClone returns a new, independent MemFS holding what the disk would
// hold after a power cut now.
//
// Namespace: with DropUnsynced and KeepSomeUnsynced, each directory holds
// its entries as of its last sync; with KeepAllUnsynced, the live entries
// (as if everything had reached the disk). File contents: the synced
// contents with none, a random-length prefix, or all of the bytes written
// since (appended or written in place) laid over them. A file truncated or
// recreated since its last sync keeps, under KeepSomeUnsynced, either all
// its synced or all its live contents, picked at random. Files the crash leaves in two directories
// (a rename whose two directories were synced differently) stay one file.
//
// Everything in the clone counts as synced. Locks and hooks are not carried
// over.
func (fs *MemFS) CrashClone(opts CrashCloneOptions) *MemFS {
	if opts.Rand == nil {
		opts.Rand = rand.New(rand.NewPCG(1, 2))
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	c := &crashCloner{opts: opts, seen: map[*memNode]*memNode{}}
	return &MemFS{root: c.clone(fs.root), locks: map[string]bool{}}
}

// crashCloner copies a tree of nodes, each node once.
type crashCloner struct {
	opts CrashCloneOptions
	seen map[*memNode]*memNode
}

func (c *crashCloner) clone(n *memNode) *memNode {
	if m, ok := c.seen[n]; ok {
		return m
	}
	if !n.dir {
		data := pagesOf(c.contents(n))
		m := &memNode{data: data, synced: data.snapshot()}
		c.seen[n] = m
		return m
	}
	m := newMemDir()
	c.seen[n] = m
	entries := n.durable
	if c.opts.UnsyncedData == KeepAllUnsynced {
		entries = n.live
	}
	// Sorted, so a seeded Rand replays the same clone.
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		m.live[name] = c.clone(entries[name])
	}
	m.durable = maps.Clone(m.live)
	return m
}

// contents returns a copy of what survives of a file's data.
func (c *crashCloner) contents(n *memNode) []byte {
	live, synced := n.data.bytes(), n.synced.bytes()
	switch c.opts.UnsyncedData {
	case KeepAllUnsynced:
		return live
	case KeepSomeUnsynced:
		if n.reset {
			if c.opts.Rand.IntN(2) == 0 {
				return synced
			}
			return live
		}
		// Written in place or appended to: the writes reached the disk up
		// to some point, and the synced bytes remain past it.
		same := commonPrefix(live, synced)
		keep := same + c.opts.Rand.IntN(len(live)-same+1)
		return append(live[:keep], synced[min(keep, len(synced)):]...)
	}
	return synced
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
