package base

// Iterator walks entries in encoded-key order. It is the contract shared by
// memtables, SSTables and merged views. Positioning calls return whether the
// iterator now stands on an entry; when they return false, Error tells an
// exhausted iterator from a failed one. Key and Value stay valid only until
// the next positioning call.
type Iterator interface {
	// SeekGE moves to the first entry whose key is ≥ key.
	SeekGE(key []byte) bool
	// SeekLT moves to the last entry whose key is < key.
	SeekLT(key []byte) bool
	// First moves to the first entry.
	First() bool
	// Last moves to the last entry.
	Last() bool
	// Next moves one entry forward.
	Next() bool
	// Prev moves one entry back.
	Prev() bool
	// Key is the encoded key of the current entry.
	Key() []byte
	// Value is the value of the current entry.
	Value() []byte
	// Error is the first error the iterator met, if any.
	Error() error
	// Close releases the iterator and returns Error.
	Close() error
}
