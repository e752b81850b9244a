package cache

import "strings"

// RowCache is the scan cache: whole rows recently read, keyed by row key.
// It does not see writes; the caller deletes a row when it changes.
type RowCache[V any] struct {
	c *Cache[string, V]
}

// NewRowCache returns a row cache of capacity bytes; 0 turns it off.
func NewRowCache[V any](capacity int64) *RowCache[V] {
	return &RowCache[V]{c: New[string, V](capacity, stringHasher())}
}

// Get returns the cached row for key.
func (r *RowCache[V]) Get(key string) (V, bool) { return r.c.Get(key) }

// Set caches row v for key at the given charge.
func (r *RowCache[V]) Set(key string, v V, charge int64) { r.c.Set(key, v, charge) }

// Delete drops the row for key.
func (r *RowCache[V]) Delete(key string) { r.c.Delete(key) }

// DeletePrefix drops every row whose key starts with prefix. It visits the
// whole cache.
func (r *RowCache[V]) DeletePrefix(prefix string) {
	r.c.DeleteIf(func(k string) bool { return strings.HasPrefix(k, prefix) })
}

// Size returns the bytes charged for cached rows.
func (r *RowCache[V]) Size() int64 { return r.c.Size() }

// Stats returns the row cache's counters and occupancy.
func (r *RowCache[V]) Stats() Stats { return r.c.Stats() }
