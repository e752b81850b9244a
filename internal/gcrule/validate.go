package gcrule

import (
	"time"

	"github.com/tabuladb/tabula/internal/base"
)

// MaxDepth is how deeply unions and intersections may nest.
const MaxDepth = 10

// Validate checks the rule as Cloud Bigtable does: MaxVersions needs n >= 1,
// MaxAge a whole number of milliseconds, at least one; unions and
// intersections need children and may nest at most MaxDepth deep. Errors
// wrap base.ErrInvalidArgument.
func (r Rule) Validate() error { return r.validate(1) }

func (r Rule) validate(depth int) error {
	switch r.kind {
	case KindNone:
		return nil
	case KindMaxVersions:
		if r.n < 1 {
			return base.InvalidArgf("gcrule: maxversions %d is below 1", r.n)
		}
		return nil
	case KindMaxAge:
		if r.age < time.Millisecond || r.age%time.Millisecond != 0 {
			return base.InvalidArgf("gcrule: maxage %v is not a positive whole number of milliseconds", r.age)
		}
		return nil
	case KindUnion, KindIntersection:
		return r.validateChildren(depth)
	}
	return base.InvalidArgf("gcrule: unknown rule kind %d", r.kind)
}

func (r Rule) validateChildren(depth int) error {
	if depth > MaxDepth {
		return base.InvalidArgf("gcrule: rules nest deeper than %d", MaxDepth)
	}
	if len(r.children) == 0 {
		return base.InvalidArgf("gcrule: empty %s", r.kind)
	}
	for _, c := range r.children {
		if err := c.validate(depth + 1); err != nil {
			return err
		}
	}
	return nil
}
