package tablet

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/sstable"
)

// tableWriter writes one SSTable of one locality group.
type tableWriter struct {
	meta *fileMeta
	w    *sstable.Writer
}

// writeTables writes the entries of it into one new SSTable per locality
// group that route sends them to, syncs them and their directory, and
// registers them with the host. Files it could not finish are removed.
// expected bounds the distinct Bloom filter prefixes of a file, so that
// filters are built in place; 0 means unknown.
func (h *Host) writeTables(it base.Iterator, schema *Schema, groups []string, route func(*base.Key) []string, expected int) (files []*fileMeta, err error) {
	writers := map[string]*tableWriter{}
	defer func() {
		if err != nil {
			for _, tw := range writers {
				if tw.w != nil {
					tw.w.Abort()
				}
				h.opts.FS.Remove(h.sstPath(tw.meta.Num))
			}
		}
	}()
	for ok := it.First(); ok; ok = it.Next() {
		k, err := base.Decode(it.Key())
		if err != nil {
			return nil, errors.Join(err, it.Close())
		}
		for _, g := range route(&k) {
			tw, err := h.tableWriterFor(writers, g, schema, expected)
			if err != nil {
				return nil, errors.Join(err, it.Close())
			}
			if err := tw.add(it.Key(), it.Value(), k.Seq); err != nil {
				return nil, errors.Join(err, it.Close())
			}
		}
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	return h.finishTables(writers)
}

func (h *Host) tableWriterFor(writers map[string]*tableWriter, group string, schema *Schema, expected int) (*tableWriter, error) {
	if tw := writers[group]; tw != nil {
		return tw, nil
	}
	num := h.newFileNum()
	f, err := h.opts.FS.Create(h.sstPath(num))
	if err != nil {
		return nil, fmt.Errorf("tablet: create sstable: %w", err)
	}
	g := schema.GroupOptions(group)
	bloom := 10
	if g.NoBloom {
		bloom = 0
	}
	w := sstable.NewWriter(f, sstable.WriterOptions{
		BlockSize:        g.BlockSize,
		Compression:      g.Compression,
		BloomBitsPerKey:  bloom,
		FilterPrefixes:   filterPrefixes,
		ExpectedPrefixes: expected,
	})
	tw := &tableWriter{meta: &fileMeta{Num: num, Group: group, InMemory: g.InMemory}, w: w}
	writers[group] = tw
	return tw, nil
}

// filterPrefixes puts each key's row and column in the Bloom filter.
func filterPrefixes(key []byte, add func([]byte)) {
	if n := base.SplitRow(key); n > 0 {
		add(key[:n])
	}
	if n := base.SplitColumn(key); n > 0 {
		add(key[:n])
	}
}

func (tw *tableWriter) add(key, value []byte, seq uint64) error {
	if tw.meta.Smallest == nil {
		tw.meta.Smallest = bytes.Clone(key)
	}
	tw.meta.Largest = append(tw.meta.Largest[:0], key...)
	tw.meta.MaxSeq = max(tw.meta.MaxSeq, seq)
	return tw.w.Add(key, value)
}

func (h *Host) finishTables(writers map[string]*tableWriter) ([]*fileMeta, error) {
	var files []*fileMeta
	for _, g := range sortedKeys(writers) {
		tw := writers[g]
		meta, err := tw.w.Close()
		tw.w = nil
		if err != nil {
			return nil, fmt.Errorf("tablet: finish sstable %d: %w", tw.meta.Num, err)
		}
		tw.meta.Size = meta.Size
		files = append(files, tw.meta)
	}
	if len(files) == 0 {
		return nil, nil
	}
	if err := syncDir(h.opts.FS, h.sstDir()); err != nil {
		return nil, err
	}
	h.mu.Lock()
	for _, f := range files {
		f.ref() // until installed; see Tablet.installLocked
		h.files[f.Num] = f
	}
	h.mu.Unlock()
	return files, nil
}

// reader opens an SSTable once and keeps it open while the file lives.
func (h *Host) reader(f *fileMeta) (*sstable.Reader, error) {
	f.open.Do(func() {
		file, err := h.opts.FS.Open(h.sstPath(f.Num))
		if err != nil {
			f.openErr = fmt.Errorf("tablet: open sstable %d: %w", f.Num, err)
			return
		}
		f.reader, f.openErr = sstable.Open(file, sstable.ReaderOptions{
			FileNum:  f.Num,
			FileName: h.sstPath(f.Num),
			Cache:    h.cache,
			Preload:  f.InMemory,
		})
		if f.openErr != nil {
			file.Close()
		}
	})
	return f.reader, f.openErr
}
