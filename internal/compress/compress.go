// Package compress holds the block codecs an SSTable may use: none, snappy,
// zstd, and the paper's two-pass scheme (long common strings over a large
// window, then a fast codec). Each codec has a one-byte ID that is stored
// with every block, so a reader needs no options to decode.
package compress

// ID names a codec on disk. IDs never change meaning.
type ID uint8

const (
	// None stores blocks as they are.
	None ID = 0
	// Snappy is the snappy block format.
	Snappy ID = 1
	// Zstd is zstandard at its default level.
	Zstd ID = 2
	// TwoPass finds long common strings over a large window, then runs
	// snappy on the result (paper §6, "Compression").
	TwoPass ID = 3
)

// Codec compresses and decompresses whole blocks. Codecs are safe for
// concurrent use.
type Codec interface {
	// ID is the codec's on-disk identifier.
	ID() ID
	// Compress appends the compressed form of src to dst[:0] and returns it.
	Compress(dst, src []byte) []byte
	// Decompress appends the decompressed form of src to dst[:0] and returns
	// it. It fails, never panics, on malformed input.
	Decompress(dst, src []byte) ([]byte, error)
}
