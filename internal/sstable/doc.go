// Package sstable reads and writes Tabula's immutable sorted files (paper
// §4, "SSTable"): a sequence of data blocks with shared-prefix keys and
// restart points, a Bloom filter block, an index block with one entry per
// data block, a properties block and a fixed-size footer. Every block carries
// its codec ID and a CRC32C, so a reader needs no options to decode a file.
// The byte layout is drawn in docs/format/sstable.md.
//
// Keys are opaque byte strings ordered by bytes.Compare. A Writer takes them
// in strictly increasing order; a Reader serves any number of concurrent
// iterators.
package sstable
