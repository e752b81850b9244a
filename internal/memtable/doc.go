// Package memtable holds a tablet's recent writes in memory: an arena-backed
// skiplist of (key, value) entries ordered by bytes.Compare on keys (Paper
// §5.3: "the recently committed ones are stored in memory in a sorted buffer
// called a memtable").
//
// Keys and values live in large byte chunks that grow on demand, and nodes
// refer to one another by 32-bit handles instead of Go pointers, so the
// garbage collector never scans a memtable. Writers are serialized by a
// mutex around the link step; readers never lock: links are published with
// atomic stores in an order that lets a reader see an insert whole or not
// at all.
package memtable
