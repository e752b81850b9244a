package sstable

import (
	"fmt"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/compress"
)

const (
	// DefaultBlockSize is the target uncompressed data-block size.
	DefaultBlockSize = 64 << 10
	// DefaultRestartInterval is the number of keys between restart points.
	DefaultRestartInterval = 16
	// maxBlockSize bounds a block's stored size; larger handles are corrupt.
	maxBlockSize = 1 << 30
	// maxBloomBitsPerKey bounds the filter density a writer accepts.
	maxBloomBitsPerKey = 64
)

// WriterOptions configures a Writer.
type WriterOptions struct {
	// BlockSize is the target uncompressed size of a data block; a block is
	// cut once it reaches this size. 0 means DefaultBlockSize (64 KiB).
	BlockSize int
	// RestartInterval is the number of keys between restart points, where a
	// key is stored whole. 0 means DefaultRestartInterval (16).
	RestartInterval int
	// Compression is the codec for data blocks. A block that the codec does
	// not shrink by at least one eighth is stored uncompressed. The zero value
	// is compress.None.
	Compression compress.ID
	// BloomBitsPerKey sizes the Bloom filter: bits per distinct prefix.
	// 0 (the default) writes no filter.
	BloomBitsPerKey int
	// FilterPrefixes calls add for every prefix of key that the Bloom filter
	// should answer for. nil (the default) puts each whole key in the filter.
	FilterPrefixes func(key []byte, add func(prefix []byte))
	// ExpectedPrefixes, when above 0, sizes the Bloom filter up front for
	// that many distinct prefixes, so that the writer holds only the filter
	// instead of a hash per prefix. More prefixes than expected raise the
	// false-positive rate. 0 (the default) sizes the filter exactly at Close.
	ExpectedPrefixes int
}

// Validate reports whether the options are usable.
func (o WriterOptions) Validate() error {
	switch {
	case o.BlockSize < 0 || o.BlockSize > maxBlockSize/2:
		return base.InvalidArgf("sstable: block size %d out of range", o.BlockSize)
	case o.RestartInterval < 0:
		return base.InvalidArgf("sstable: restart interval %d is negative", o.RestartInterval)
	case o.ExpectedPrefixes < 0:
		return base.InvalidArgf("sstable: expected prefixes %d is negative", o.ExpectedPrefixes)
	case o.BloomBitsPerKey < 0 || o.BloomBitsPerKey > maxBloomBitsPerKey:
		return base.InvalidArgf("sstable: bloom bits per key %d out of range", o.BloomBitsPerKey)
	}
	if _, err := compress.Lookup(o.Compression); err != nil {
		return fmt.Errorf("sstable: %w", err)
	}
	return nil
}

func (o WriterOptions) withDefaults() WriterOptions {
	if o.BlockSize == 0 {
		o.BlockSize = DefaultBlockSize
	}
	if o.RestartInterval == 0 {
		o.RestartInterval = DefaultRestartInterval
	}
	return o
}

// BlockCache holds decompressed, verified data blocks, shared by the readers
// of a server. Implementations are safe for concurrent use.
type BlockCache interface {
	// Get returns the block of file fileNum stored at offset, if cached.
	Get(fileNum, offset uint64) ([]byte, bool)
	// Set caches a decompressed, verified block; the cache keeps block and
	// the caller does not modify it afterwards.
	Set(fileNum, offset uint64, block []byte)
}

// ReaderOptions configures a Reader. The zero value is usable.
type ReaderOptions struct {
	// FileNum identifies the file in Cache. Default 0.
	FileNum uint64
	// FileName names the file in error messages. Default "".
	FileName string
	// Cache holds data blocks across reads; nil (the default) means none.
	Cache BlockCache
	// Preload reads every data block into memory at Open, so that reads never
	// touch the file again (in-memory locality groups, paper §6). Default
	// false.
	Preload bool
}
