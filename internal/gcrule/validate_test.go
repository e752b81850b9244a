package gcrule

import (
	"errors"
	"testing"
	"time"

	"github.com/tabuladb/tabula/internal/base"
)

func deep(n int) Rule {
	r := MaxVersions(1)
	for range n {
		r = Union(r)
	}
	return r
}

func TestValidate(t *testing.T) {
	valid := []Rule{
		None(), MaxVersions(1), MaxAge(time.Millisecond), MaxAge(24 * time.Hour),
		nested(), Union(None()), deep(MaxDepth),
	}
	for _, r := range valid {
		if err := r.Validate(); err != nil {
			t.Errorf("%v: %v", r, err)
		}
	}
	invalid := []Rule{
		MaxVersions(0), MaxVersions(-1), MaxAge(0), MaxAge(-time.Second),
		MaxAge(time.Microsecond), MaxAge(1500 * time.Microsecond),
		Union(), Intersection(), Union(MaxVersions(1), Intersection()),
		Union(MaxVersions(0)), deep(MaxDepth + 1), {kind: 9},
	}
	for _, r := range invalid {
		err := r.Validate()
		if !errors.Is(err, base.ErrInvalidArgument) {
			t.Errorf("%v: got %v, want invalid argument", r, err)
		}
	}
}
