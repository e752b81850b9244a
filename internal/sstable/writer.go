package sstable

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/compress"
	"github.com/tabuladb/tabula/internal/vfs"
)

// writeBufferSize is how much a Writer gathers before it writes to the file.
const writeBufferSize = 1 << 20

// Meta describes a finished table.
type Meta struct {
	// Size is the file size in bytes.
	Size uint64
	// Props are the table's properties, as stored.
	Props Properties
}

// Writer writes one table. Keys must be added in strictly increasing order.
// Close finishes the table, syncs the file and closes it; the Writer owns
// the file from NewWriter on and closes it on every error path of Close.
type Writer struct {
	f      vfs.File
	opts   WriterOptions
	codec  compress.Codec
	err    error
	closed bool

	block   blockBuilder
	index   blockBuilder
	bloom   bloomBuilder
	props   Properties
	lastKey []byte
	offset  uint64 // bytes handed to the file or to out
	out     []byte // bytes not yet written to the file
	scratch []byte // compressed block
}

// NewWriter returns a Writer that writes a table to f. Bad options make
// every later call fail.
func NewWriter(f vfs.File, opts WriterOptions) *Writer {
	w := &Writer{f: f}
	if w.err = opts.Validate(); w.err != nil {
		return w
	}
	w.opts = opts.withDefaults()
	w.codec, _ = compress.Lookup(w.opts.Compression) // checked by Validate
	w.block.restartInterval = w.opts.RestartInterval
	w.index.restartInterval = 1
	w.props.Compression = w.opts.Compression
	w.props.BloomBitsPerKey = uint64(w.opts.BloomBitsPerKey)
	if w.opts.BloomBitsPerKey > 0 && w.opts.ExpectedPrefixes > 0 {
		w.bloom.presize(w.opts.ExpectedPrefixes, w.opts.BloomBitsPerKey)
	}
	return w
}

// Add appends one entry. Its key must sort after every key added before.
func (w *Writer) Add(key, value []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("sstable: add to a closed writer: %w", base.ErrClosed)
	}
	if w.props.NumEntries > 0 && bytes.Compare(key, w.lastKey) <= 0 {
		return base.InvalidArgf("sstable: key %q added after %q", key, w.lastKey)
	}
	if w.opts.BloomBitsPerKey > 0 {
		w.bloom.startKey()
		if w.opts.FilterPrefixes != nil {
			w.opts.FilterPrefixes(key, w.bloom.add)
		} else {
			w.bloom.add(key)
		}
	}
	if w.props.NumEntries == 0 {
		w.props.SmallestKey = bytes.Clone(key)
	}
	w.block.add(key, value)
	w.lastKey = append(w.lastKey[:0], key...)
	w.props.NumEntries++
	w.props.RawKeyBytes += uint64(len(key))
	w.props.RawValueBytes += uint64(len(value))
	if w.block.estimatedSize() >= w.opts.BlockSize {
		w.err = w.finishDataBlock()
	}
	return w.err
}

// EstimatedSize is the size the file would have if closed now, roughly.
func (w *Writer) EstimatedSize() uint64 {
	return w.offset + uint64(w.block.estimatedSize())
}

// finishDataBlock writes the pending data block and indexes it under its
// last key.
func (w *Writer) finishDataBlock() error {
	if w.block.empty() {
		return nil
	}
	raw := w.block.finish()
	h, err := w.writeBlock(raw, w.codec)
	if err != nil {
		return err
	}
	w.block.reset()
	w.index.add(w.lastKey, h.encode(nil))
	w.props.DataBlocks++
	w.props.DataSize += h.size + trailerLen
	return nil
}

// writeBlock compresses payload with codec when that saves at least an
// eighth, appends the trailer and queues the block for the file.
func (w *Writer) writeBlock(payload []byte, codec compress.Codec) (handle, error) {
	id := compress.None
	if codec != nil && codec.ID() != compress.None {
		w.scratch = codec.Compress(w.scratch, payload)
		if len(w.scratch) <= len(payload)-len(payload)/8 {
			payload, id = w.scratch, codec.ID()
		}
	}
	h := handle{offset: w.offset, size: uint64(len(payload))}
	start := len(w.out)
	w.out = append(w.out, payload...)
	w.out = append(w.out, byte(id))
	w.out = binary.LittleEndian.AppendUint32(w.out, crc32c(w.out[start:]))
	w.offset += h.size + trailerLen
	if len(w.out) >= writeBufferSize {
		return h, w.flush()
	}
	return h, nil
}

func (w *Writer) flush() error {
	if len(w.out) == 0 {
		return nil
	}
	if _, err := w.f.Write(w.out); err != nil {
		return fmt.Errorf("sstable: write: %w", err)
	}
	w.out = w.out[:0]
	return nil
}

// Close writes the filter, index, properties and footer, syncs the file and
// closes it.
func (w *Writer) Close() (Meta, error) {
	if w.closed {
		return Meta{}, fmt.Errorf("sstable: writer closed twice: %w", base.ErrClosed)
	}
	w.closed = true
	meta, err := w.finish()
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("sstable: close: %w", cerr)
	}
	if err != nil {
		return Meta{}, err
	}
	return meta, nil
}

func (w *Writer) finish() (Meta, error) {
	if w.err != nil {
		return Meta{}, w.err
	}
	if err := w.finishDataBlock(); err != nil {
		return Meta{}, err
	}
	if w.props.NumEntries > 0 {
		w.props.LargestKey = bytes.Clone(w.lastKey)
	}
	var ft footer
	if w.opts.BloomBitsPerKey > 0 {
		filter, n := w.bloom.finish(w.opts.BloomBitsPerKey)
		w.props.FilterPrefixes = uint64(n)
		h, err := w.writeBlock(filter, nil)
		if err != nil {
			return Meta{}, err
		}
		ft.filter = h
		w.props.FilterSize = h.size + trailerLen
	}
	h, err := w.writeBlock(w.index.finish(), nil)
	if err != nil {
		return Meta{}, err
	}
	ft.index = h
	w.props.IndexSize = h.size + trailerLen
	if ft.props, err = w.writeBlock(w.props.encode(), nil); err != nil {
		return Meta{}, err
	}
	w.out = ft.encode(w.out)
	w.offset += footerLen
	if err := w.flush(); err != nil {
		return Meta{}, err
	}
	if err := w.f.Sync(); err != nil {
		return Meta{}, fmt.Errorf("sstable: sync: %w", err)
	}
	return Meta{Size: w.offset, Props: w.props}, nil
}

// Abort closes the file without finishing the table; the caller removes it.
func (w *Writer) Abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	return w.f.Close()
}
