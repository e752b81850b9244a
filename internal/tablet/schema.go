package tablet

import (
	"fmt"
	"regexp"

	"github.com/tabuladb/tabula/internal/aggregate"
	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/compress"
	"github.com/tabuladb/tabula/internal/gcrule"
)

// DefaultGroup is the locality group of families that name none.
const DefaultGroup = "default"

// Schema is what a tablet needs to know of its table: the column families
// and the locality groups that store them (paper §6).
type Schema struct {
	// Families maps a family name to its settings.
	Families map[string]Family `json:"families"`
	// Groups maps a locality group name to its settings. A group a family
	// names but this map lacks gets DefaultGroupOptions.
	Groups map[string]GroupOptions `json:"groups,omitempty"`
	// Granularity is the unit every cell timestamp must be a multiple of,
	// in microseconds. 0 means 1000 (milliseconds), as in Cloud Bigtable.
	Granularity int64 `json:"granularity,omitempty"`
	// DeletionProtection makes DeleteTable fail.
	DeletionProtection bool `json:"deletionProtection,omitempty"`
}

// Family is a column family's settings.
type Family struct {
	// GC is the family's garbage-collection rule; the zero rule keeps all.
	GC gcrule.Rule `json:"-"`
	// Aggregate makes the family an aggregate family of that type.
	Aggregate aggregate.Type `json:"aggregate,omitempty"`
	// Group is the locality group; "" means DefaultGroup.
	Group string `json:"group,omitempty"`
	// Floor is the lowest sequence number of the family's cells: cells
	// below it were written to a family by the same name that was dropped
	// before this one was created, and are never read (compactions drop
	// them). The host sets it; 0 hides nothing.
	Floor uint64 `json:"floor,omitempty"`
}

// GroupOptions are a locality group's storage settings.
type GroupOptions struct {
	// BlockSize is the SSTable block size in bytes; 0 means 64 KiB.
	BlockSize int `json:"blockSize,omitempty"`
	// Compression is the block codec.
	Compression compress.ID `json:"compression,omitempty"`
	// NoBloom turns the Bloom filter off.
	NoBloom bool `json:"noBloom,omitempty"`
	// InMemory keeps the group's SSTables decoded in memory.
	InMemory bool `json:"inMemory,omitempty"`
}

var familyName = regexp.MustCompile(`^[_a-zA-Z0-9][-_.a-zA-Z0-9]*$`)

// ValidFamilyName reports whether name is a legal column family name.
func ValidFamilyName(name string) bool {
	return len(name) <= 64 && familyName.MatchString(name)
}

// Validate checks the schema.
func (s *Schema) Validate() error {
	for name, f := range s.Families {
		if !ValidFamilyName(name) {
			return base.InvalidArgf("tablet: bad family name %q", name)
		}
		if err := f.GC.Validate(); err != nil {
			return fmt.Errorf("tablet: family %q: %w", name, err)
		}
	}
	for name, g := range s.Groups {
		if _, err := compress.Lookup(g.Compression); err != nil {
			return base.InvalidArgf("tablet: group %q: %v", name, err)
		}
		if g.BlockSize < 0 || g.BlockSize > 64<<20 {
			return base.InvalidArgf("tablet: group %q: block size %d", name, g.BlockSize)
		}
	}
	if s.Granularity < 0 {
		return base.InvalidArgf("tablet: granularity %d", s.Granularity)
	}
	return nil
}

func (s *Schema) granularity() int64 {
	if s.Granularity == 0 {
		return 1000
	}
	return s.Granularity
}

// GroupOf returns the locality group of a family.
func (s *Schema) GroupOf(family string) string {
	if g := s.Families[family].Group; g != "" {
		return g
	}
	return DefaultGroup
}

// GroupOptions returns a group's settings.
func (s *Schema) GroupOptions(group string) GroupOptions { return s.Groups[group] }

// Clone returns a deep copy of the maps (rules are values).
func (s *Schema) Clone() *Schema {
	c := &Schema{Families: make(map[string]Family, len(s.Families)), Groups: make(map[string]GroupOptions, len(s.Groups)), Granularity: s.Granularity, DeletionProtection: s.DeletionProtection}
	for k, v := range s.Families {
		c.Families[k] = v
	}
	for k, v := range s.Groups {
		c.Groups[k] = v
	}
	return c
}
