package cache

import "math/bits"

const (
	maxShards = 16
	// minShardCapacity keeps small caches in few shards, so that their
	// eviction order stays close to a single LRU.
	minShardCapacity = 1 << 20
)

// Cache is a sharded LRU bounded by total charged bytes, safe for
// concurrent use. Each shard holds an equal part of the capacity and
// evicts its own least recently used entries. A capacity of 0 turns the
// cache off: Get misses and Set does nothing.
type Cache[K comparable, V any] struct {
	shards   []shard[K, V]
	mask     uint64
	hash     func(K) uint64
	group    func(K) uint64 // nil unless entries are indexed by group
	capacity int64
}

// Stats are a cache's counters and occupancy.
type Stats struct {
	// Hits and Misses count Get calls that found and did not find a value.
	Hits, Misses uint64
	// Evictions counts entries dropped to make room; Delete, DeleteIf,
	// EvictFile and replacement by Set are not counted.
	Evictions uint64
	// Size is the total charge of the cached entries.
	Size int64
	// Capacity is the budget Size stays within.
	Capacity int64
}

// New returns a cache of capacity bytes whose keys are spread over shards
// by hash.
func New[K comparable, V any](capacity int64, hash func(K) uint64) *Cache[K, V] {
	return newCache[K, V](capacity, shardCount(capacity), hash, nil)
}

// shardCount is the power of two, at most maxShards, that gives each
// shard at least minShardCapacity.
func shardCount(capacity int64) int {
	n := capacity / minShardCapacity
	if n <= 1 {
		return 1
	}
	return min(maxShards, 1<<(bits.Len64(uint64(n))-1))
}

// newCache returns a cache of n shards, n a power of two. If group is not
// nil, entries are indexed by group for deleteGroup.
func newCache[K comparable, V any](capacity int64, n int, hash, group func(K) uint64) *Cache[K, V] {
	capacity = max(capacity, 0)
	c := &Cache[K, V]{
		shards:   make([]shard[K, V], n),
		mask:     uint64(n - 1),
		hash:     hash,
		group:    group,
		capacity: capacity,
	}
	for i := range c.shards {
		c.shards[i].init(capacity/int64(n), group != nil)
	}
	return c
}

func (c *Cache[K, V]) shard(k K) *shard[K, V] {
	return &c.shards[c.hash(k)&c.mask]
}

// Get returns the value cached for k and marks it recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	return c.shard(k).get(k)
}

// Set caches v for k at the given charge, replacing any value, and evicts
// least recently used entries of k's shard to stay within budget. An entry
// charged more than a shard's budget is not kept.
func (c *Cache[K, V]) Set(k K, v V, charge int64) {
	if c.capacity == 0 {
		return
	}
	var g uint64
	if c.group != nil {
		g = c.group(k)
	}
	c.shard(k).set(k, v, charge, g)
}

// Delete drops the entry for k, if any.
func (c *Cache[K, V]) Delete(k K) {
	c.shard(k).delete(k)
}

// DeleteIf drops every entry whose key satisfies pred. It visits the whole
// cache, one shard at a time; pred runs under a shard's lock and must not
// call back into the cache.
func (c *Cache[K, V]) DeleteIf(pred func(K) bool) {
	for i := range c.shards {
		c.shards[i].deleteIf(pred)
	}
}

// deleteGroup drops every entry of group g, visiting only those entries.
func (c *Cache[K, V]) deleteGroup(g uint64) {
	for i := range c.shards {
		c.shards[i].deleteGroup(g)
	}
}

// Size returns the total charge of the cached entries.
func (c *Cache[K, V]) Size() int64 {
	var st Stats
	for i := range c.shards {
		c.shards[i].stats(&st)
	}
	return st.Size
}

// Stats returns the cache's counters and occupancy.
func (c *Cache[K, V]) Stats() Stats {
	st := Stats{Capacity: c.capacity}
	for i := range c.shards {
		c.shards[i].stats(&st)
	}
	return st
}
