package cache

// blockOverhead is charged per block on top of its length: the entry,
// its map slot and the slice header.
const blockOverhead = 128

// blockKey names an SSTable block.
type blockKey struct {
	fileNum, offset uint64
}

// BlockCache holds decompressed SSTable blocks, keyed by file number and
// block offset. A tablet server has one, shared by all its tablets.
type BlockCache struct {
	c *Cache[blockKey, []byte]
}

// NewBlockCache returns a block cache of capacity bytes; 0 turns it off.
func NewBlockCache(capacity int64) *BlockCache {
	hash := func(k blockKey) uint64 { return mix64(k.fileNum*0x9e3779b97f4a7c15 ^ k.offset) }
	group := func(k blockKey) uint64 { return k.fileNum }
	return &BlockCache{c: newCache[blockKey, []byte](capacity, shardCount(capacity), hash, group)}
}

// Get returns the cached block at offset in file fileNum.
func (b *BlockCache) Get(fileNum, offset uint64) ([]byte, bool) {
	return b.c.Get(blockKey{fileNum, offset})
}

// Set caches block, charged its length plus a fixed overhead. The cache
// keeps block itself: the caller must not modify it afterwards.
func (b *BlockCache) Set(fileNum, offset uint64, block []byte) {
	b.c.Set(blockKey{fileNum, offset}, block, int64(len(block))+blockOverhead)
}

// EvictFile drops every block of file fileNum, as when the file is
// deleted. It visits only that file's blocks.
func (b *BlockCache) EvictFile(fileNum uint64) {
	b.c.deleteGroup(fileNum)
}

// Size returns the bytes charged for cached blocks.
func (b *BlockCache) Size() int64 { return b.c.Size() }

// Stats returns the block cache's counters and occupancy.
func (b *BlockCache) Stats() Stats { return b.c.Stats() }
