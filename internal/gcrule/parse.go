package gcrule

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tabuladb/tabula/internal/base"
)

// maxParseLen bounds the text Parse reads.
const maxParseLen = 4096

// Parse reads a rule in the syntax of cbt setgcpolicy:
//
//	never
//	maxage=<duration>     units ms, s, m, h, d: 5ms, 90m, 36h, 1d
//	maxversions=<n>
//
// combined with "&&" (or "and") and "||" (or "or") and parentheses; "&&"
// binds tighter than "||". A chain of one operator becomes one union or
// intersection; each parenthesized group becomes its own. The rule returned
// is valid. Errors wrap base.ErrInvalidArgument.
func Parse(s string) (Rule, error) {
	if len(s) > maxParseLen {
		return Rule{}, base.InvalidArgf("gcrule: rule text longer than %d bytes", maxParseLen)
	}
	toks, err := tokenize(s)
	if err != nil {
		return Rule{}, err
	}
	p := parser{toks: toks}
	r, err := p.union(0)
	if err != nil {
		return Rule{}, err
	}
	if p.pos < len(p.toks) {
		return Rule{}, base.InvalidArgf("gcrule: unexpected %q in %q", p.toks[p.pos], s)
	}
	if err := r.Validate(); err != nil {
		return Rule{}, err
	}
	return r, nil
}

type parser struct {
	toks []string
	pos  int
}

func (p *parser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *parser) next() string {
	t := p.peek()
	if p.pos < len(p.toks) {
		p.pos++
	}
	return t
}

// union reads terms separated by "||".
func (p *parser) union(depth int) (Rule, error) {
	return p.chain(depth, KindUnion, "||", "or", p.intersection)
}

// intersection reads factors separated by "&&".
func (p *parser) intersection(depth int) (Rule, error) {
	return p.chain(depth, KindIntersection, "&&", "and", p.factor)
}

func (p *parser) chain(depth int, kind Kind, op, word string, operand func(int) (Rule, error)) (Rule, error) {
	first, err := operand(depth)
	if err != nil {
		return Rule{}, err
	}
	rules := []Rule{first}
	for t := p.peek(); t == op || strings.EqualFold(t, word); t = p.peek() {
		p.next()
		r, err := operand(depth)
		if err != nil {
			return Rule{}, err
		}
		rules = append(rules, r)
	}
	if len(rules) == 1 {
		return first, nil
	}
	return Rule{kind: kind, children: rules}, nil
}

// factor reads a parenthesized rule or a single rule.
func (p *parser) factor(depth int) (Rule, error) {
	t := p.next()
	switch {
	case t == "(":
		if depth >= MaxDepth {
			return Rule{}, base.InvalidArgf("gcrule: parentheses nest deeper than %d", MaxDepth)
		}
		r, err := p.union(depth + 1)
		if err != nil {
			return Rule{}, err
		}
		if p.next() != ")" {
			return Rule{}, base.InvalidArgf("gcrule: missing ')'")
		}
		return r, nil
	case strings.EqualFold(t, "never"):
		return Rule{}, nil
	case strings.EqualFold(t, "maxage"), strings.EqualFold(t, "maxversions"):
		if p.next() != "=" {
			return Rule{}, base.InvalidArgf("gcrule: want '=' after %s", t)
		}
		return leaf(strings.ToLower(t), p.next())
	case t == "":
		return Rule{}, base.InvalidArgf("gcrule: rule ends early")
	}
	return Rule{}, base.InvalidArgf("gcrule: unexpected %q", t)
}

func leaf(key, value string) (Rule, error) {
	if key == "maxage" {
		d, err := parseAge(value)
		if err != nil {
			return Rule{}, err
		}
		return MaxAge(d), nil
	}
	n, err := strconv.Atoi(value)
	if err != nil {
		return Rule{}, base.InvalidArgf("gcrule: bad maxversions %q", value)
	}
	return MaxVersions(n), nil
}

// parseAge reads a whole number followed by a unit of ageUnits.
func parseAge(s string) (time.Duration, error) {
	i := strings.IndexFunc(s, func(c rune) bool { return c < '0' || c > '9' })
	if i <= 0 {
		return 0, base.InvalidArgf("gcrule: bad maxage %q: want a number and a unit", s)
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, base.InvalidArgf("gcrule: bad maxage %q", s)
	}
	unit := strings.ToLower(s[i:])
	for _, u := range ageUnits {
		if unit == u.name {
			if n > math.MaxInt64/int64(u.d) {
				return 0, base.InvalidArgf("gcrule: maxage %q is too long", s)
			}
			return time.Duration(n) * u.d, nil
		}
	}
	return 0, base.InvalidArgf("gcrule: bad maxage unit in %q: want ms, s, m, h or d", s)
}
