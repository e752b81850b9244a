package main

import (
	"fmt"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/tablet"
	"github.com/tabuladb/tabula/internal/vfs"
)

const table = "bench"

type tabulaEngine struct{ h *tablet.Host }

func openTabula(dir string) (engine, error) {
	h, err := tablet.Open(tablet.Options{
		FS:             vfs.NewOS(),
		Dir:            dir,
		BlockCacheSize: *flagCache << 20,
		MemtableSize:   *flagMem << 20,
	})
	if err != nil {
		return nil, err
	}
	schema := &tablet.Schema{Families: map[string]tablet.Family{"f": {}}}
	if err := h.CreateTable(table, schema, nil); err != nil {
		h.Close()
		return nil, err
	}
	return &tabulaEngine{h: h}, nil
}

func (t *tabulaEngine) name() string { return "tabula" }

var qualifier = []byte("q")

func (t *tabulaEngine) put(key, value []byte) error {
	return t.h.Apply(table, key, []base.Mutation{{Kind: base.KindPut, Family: "f", Qualifier: qualifier, Timestamp: 1000, Value: value}})
}

func (t *tabulaEngine) get(key []byte) (int, error) {
	row, err := t.h.ReadRow(table, key)
	if err != nil {
		return 0, err
	}
	if len(row.Cells) != 1 {
		return 0, fmt.Errorf("tabula: row %q has %d cells", key, len(row.Cells))
	}
	return len(row.Cells[0].Value), nil
}

func (t *tabulaEngine) scan(fn func(key, value []byte)) error {
	return t.h.Scan(table, tablet.ScanOptions{}, func(r base.Row) bool {
		fn(r.Key, r.Cells[0].Value)
		return true
	})
}

func (t *tabulaEngine) close() error { return t.h.Close() }
