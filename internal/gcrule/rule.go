// Package gcrule holds the garbage-collection rules of a column family
// (paper §5): keep the last n versions of a cell, keep versions younger than
// an age, and unions and intersections of such rules, as in Cloud Bigtable's
// GcRule. A Rule is a value; its zero value keeps everything.
package gcrule

import "time"

// Kind names what a Rule does.
type Kind uint8

// The kinds of rule. The values are stored by MarshalBinary and never change.
const (
	// KindNone keeps every version.
	KindNone Kind = 0
	// KindMaxVersions keeps the newest n versions.
	KindMaxVersions Kind = 1
	// KindMaxAge keeps versions younger than an age.
	KindMaxAge Kind = 2
	// KindUnion drops a version if any child drops it.
	KindUnion Kind = 3
	// KindIntersection drops a version if every child drops it.
	KindIntersection Kind = 4
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case KindNone:
		return "none"
	case KindMaxVersions:
		return "maxversions"
	case KindMaxAge:
		return "maxage"
	case KindUnion:
		return "union"
	case KindIntersection:
		return "intersection"
	}
	return "unknown"
}

// Rule decides which versions of a column the garbage collector drops.
// The zero Rule keeps everything.
type Rule struct {
	kind     Kind
	n        int
	age      time.Duration
	children []Rule
}

// None returns the rule that keeps everything; it equals Rule{}.
func None() Rule { return Rule{} }

// MaxVersions returns the rule that keeps the newest n versions of a column.
func MaxVersions(n int) Rule { return Rule{kind: KindMaxVersions, n: n} }

// MaxAge returns the rule that keeps versions whose timestamp is within d of
// the current time.
func MaxAge(d time.Duration) Rule { return Rule{kind: KindMaxAge, age: d} }

// Union returns the rule that drops a version if any of rules drops it.
// An empty union drops nothing (and does not validate).
func Union(rules ...Rule) Rule {
	return Rule{kind: KindUnion, children: append([]Rule(nil), rules...)}
}

// Intersection returns the rule that drops a version only if every one of
// rules drops it. An empty intersection drops nothing (and does not
// validate).
func Intersection(rules ...Rule) Rule {
	return Rule{kind: KindIntersection, children: append([]Rule(nil), rules...)}
}

// Kind returns what the rule does.
func (r Rule) Kind() Kind { return r.kind }

// IsNone reports whether the rule is the keep-everything rule.
func (r Rule) IsNone() bool { return r.kind == KindNone }

// Children returns a copy of a union's or intersection's rules, and nil
// for other kinds.
func (r Rule) Children() []Rule { return append([]Rule(nil), r.children...) }

// MaxVersionsValue returns n of a MaxVersions rule, and 0 for other kinds.
func (r Rule) MaxVersionsValue() int { return r.n }

// MaxAgeValue returns the age of a MaxAge rule, and 0 for other kinds.
func (r Rule) MaxAgeValue() time.Duration { return r.age }

// Equal reports whether r and o have the same structure and values.
func (r Rule) Equal(o Rule) bool {
	if r.kind != o.kind || r.n != o.n || r.age != o.age || len(r.children) != len(o.children) {
		return false
	}
	for i := range r.children {
		if !r.children[i].Equal(o.children[i]) {
			return false
		}
	}
	return true
}
