package tablet

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tabuladb/tabula/internal/sstable"
)

// fileMeta is one SSTable of the host. Tablets share it after a split; it
// lives while any version refers to it (refs), and is deleted once no
// version and no persisted manifest does.
type fileMeta struct {
	Num      uint64 `json:"num"`
	Group    string `json:"group"`
	Size     uint64 `json:"size"`
	Smallest []byte `json:"smallest"`
	Largest  []byte `json:"largest"`
	MaxSeq   uint64 `json:"maxSeq"`
	// InMemory marks a file of an in-memory locality group: its blocks
	// are loaded when it is opened and served from memory. A group made
	// in-memory later gets such files as compactions rewrite it.
	InMemory bool `json:"inMemory,omitempty"`

	refs    atomic.Int32
	open    sync.Once
	reader  *sstable.Reader
	openErr error
}

func (f *fileMeta) ref() { f.refs.Add(1) }

func (f *fileMeta) unref() {
	if f.refs.Add(-1) < 0 {
		panic(fmt.Sprintf("tablet: file %d unreferenced too often", f.Num))
	}
}

// version is an immutable set of SSTables of one tablet, by locality group,
// newest first within a group. Readers hold a reference while they use it.
type version struct {
	id     uint64 // unique in the process; keys the row cache
	groups map[string][]*fileMeta
	refs   atomic.Int32
}

var versionIDs atomic.Uint64

func newVersion(groups map[string][]*fileMeta) *version {
	v := &version{id: versionIDs.Add(1), groups: groups}
	v.refs.Store(1)
	for _, fs := range groups {
		for _, f := range fs {
			f.ref()
		}
	}
	return v
}

func (v *version) ref() { v.refs.Add(1) }

func (v *version) unref() {
	if v.refs.Add(-1) == 0 {
		for _, fs := range v.groups {
			for _, f := range fs {
				f.unref()
			}
		}
	}
}

// files returns every file of the version.
func (v *version) files() []*fileMeta {
	var all []*fileMeta
	for _, fs := range v.groups {
		all = append(all, fs...)
	}
	return all
}

// count returns the number of files.
func (v *version) count() int {
	n := 0
	for _, fs := range v.groups {
		n += len(fs)
	}
	return n
}

// edit returns a new version with the given files removed and added.
func (v *version) edit(removed []*fileMeta, added []*fileMeta) *version {
	groups := make(map[string][]*fileMeta, len(v.groups)+1)
	for g, fs := range v.groups {
		kept := slices.DeleteFunc(slices.Clone(fs), func(f *fileMeta) bool { return slices.Contains(removed, f) })
		if len(kept) > 0 {
			groups[g] = kept
		}
	}
	for _, f := range added {
		groups[f.Group] = append([]*fileMeta{f}, groups[f.Group]...)
	}
	return newVersion(groups)
}
