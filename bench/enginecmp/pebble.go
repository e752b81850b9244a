package main

import (
	"github.com/cockroachdb/pebble/v2"
)

type pebbleEngine struct {
	db    *pebble.DB
	cache *pebble.Cache
}

func openPebble(dir string) (engine, error) {
	cache := pebble.NewCache(*flagCache << 20)
	db, err := pebble.Open(dir, &pebble.Options{Cache: cache, MemTableSize: uint64(*flagMem << 20)})
	if err != nil {
		cache.Unref()
		return nil, err
	}
	return &pebbleEngine{db: db, cache: cache}, nil
}

func (p *pebbleEngine) name() string { return "pebble" }

func (p *pebbleEngine) put(key, value []byte) error { return p.db.Set(key, value, pebble.Sync) }

func (p *pebbleEngine) get(key []byte) (int, error) {
	v, closer, err := p.db.Get(key)
	if err != nil {
		return 0, err
	}
	n := len(v)
	closer.Close()
	return n, nil
}

func (p *pebbleEngine) scan(fn func(key, value []byte)) error {
	it, err := p.db.NewIter(nil)
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		fn(it.Key(), it.Value())
	}
	return it.Close()
}

func (p *pebbleEngine) close() error {
	err := p.db.Close()
	p.cache.Unref()
	return err
}
