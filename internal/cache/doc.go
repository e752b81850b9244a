// Package cache holds a tablet server's read caches (Paper §6, "Caching
// for read performance"): the block cache of SSTable blocks shared by all
// tablets of a server, and the scan cache of recently read rows. Both are
// sharded LRU caches bounded by the bytes charged for their entries.
package cache
