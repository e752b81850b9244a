package gcrule

import (
	"strconv"
	"strings"
	"time"
)

// String returns the rule in the syntax of cbt setgcpolicy, which Parse
// reads: "never", "maxversions=2", "maxage=5ms",
// "(maxage=1d && maxversions=2) || maxversions=5". A union or intersection
// inside another is put in parentheses.
func (r Rule) String() string {
	var b strings.Builder
	r.format(&b)
	return b.String()
}

func (r Rule) format(b *strings.Builder) {
	switch r.kind {
	case KindNone:
		b.WriteString("never")
	case KindMaxVersions:
		b.WriteString("maxversions=")
		b.WriteString(strconv.Itoa(r.n))
	case KindMaxAge:
		b.WriteString("maxage=")
		b.WriteString(formatAge(r.age))
	case KindUnion:
		r.formatChildren(b, " || ")
	case KindIntersection:
		r.formatChildren(b, " && ")
	default:
		b.WriteString("unknown(" + strconv.Itoa(int(r.kind)) + ")")
	}
}

func (r Rule) formatChildren(b *strings.Builder, op string) {
	if len(r.children) == 0 {
		b.WriteString("()")
		return
	}
	for i, c := range r.children {
		if i > 0 {
			b.WriteString(op)
		}
		nested := c.kind == KindUnion || c.kind == KindIntersection
		if nested {
			b.WriteByte('(')
		}
		c.format(b)
		if nested {
			b.WriteByte(')')
		}
	}
}

// ageUnits are the units of maxage, largest first.
var ageUnits = []struct {
	name string
	d    time.Duration
}{
	{"d", 24 * time.Hour},
	{"h", time.Hour},
	{"m", time.Minute},
	{"s", time.Second},
	{"ms", time.Millisecond},
}

// formatAge writes d in the largest unit that divides it. An age that is
// not a positive whole number of milliseconds (an invalid rule) falls back
// to time.Duration's form.
func formatAge(d time.Duration) string {
	if d > 0 {
		for _, u := range ageUnits {
			if d%u.d == 0 {
				return strconv.FormatInt(int64(d/u.d), 10) + u.name
			}
		}
	}
	return d.String()
}
