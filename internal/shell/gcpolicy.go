package shell

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/bigtable"
)

// parseGCPolicy reads a garbage-collection policy in cbt's grammar:
//
//	policy := "never" | or
//	or     := and { ("or" | "||") and }
//	and    := rule { ("and" | "&&") rule }
//	rule   := "maxage=" DURATION | "maxversions=" N | "(" or ")"
//
// "and" binds tighter than "or". DURATION is a number with a unit of ms,
// s, m, h or d (days), e.g. 30d, 12h, 5m.
func parseGCPolicy(s string) (bigtable.GCPolicy, error) {
	toks := tokenizeGC(s)
	if len(toks) == 1 && toks[0] == "never" {
		return bigtable.NoGcPolicy(), nil
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("empty GC policy")
	}
	p := &gcParser{toks: toks}
	pol, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos < len(toks) {
		return nil, fmt.Errorf("unexpected %q in GC policy", toks[p.pos])
	}
	return pol, nil
}

// tokenizeGC splits a policy into words, parentheses, "||" and "&&".
func tokenizeGC(s string) []string {
	for _, op := range []string{"(", ")", "||", "&&"} {
		s = strings.ReplaceAll(s, op, " "+op+" ")
	}
	return strings.Fields(s)
}

type gcParser struct {
	toks []string
	pos  int
}

func (p *gcParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *gcParser) or() (bigtable.GCPolicy, error) {
	return p.list(p.and, bigtable.UnionPolicy, "or", "||")
}

func (p *gcParser) and() (bigtable.GCPolicy, error) {
	return p.list(p.rule, bigtable.IntersectionPolicy, "and", "&&")
}

// list parses one or more sub-policies separated by either operator word.
func (p *gcParser) list(sub func() (bigtable.GCPolicy, error), join func(...bigtable.GCPolicy) bigtable.GCPolicy, ops ...string) (bigtable.GCPolicy, error) {
	first, err := sub()
	if err != nil {
		return nil, err
	}
	all := []bigtable.GCPolicy{first}
	for t := strings.ToLower(p.peek()); t == ops[0] || t == ops[1]; t = strings.ToLower(p.peek()) {
		p.pos++
		next, err := sub()
		if err != nil {
			return nil, err
		}
		all = append(all, next)
	}
	if len(all) == 1 {
		return first, nil
	}
	return join(all...), nil
}

func (p *gcParser) rule() (bigtable.GCPolicy, error) {
	t := p.peek()
	if t == "" {
		return nil, fmt.Errorf("GC policy ends early")
	}
	p.pos++
	if t == "(" {
		pol, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf("missing ) in GC policy")
		}
		p.pos++
		return pol, nil
	}
	return parseGCRule(t)
}

// parseGCRule reads one maxage=D or maxversions=N.
func parseGCRule(t string) (bigtable.GCPolicy, error) {
	k, v, _ := strings.Cut(t, "=")
	switch strings.ToLower(k) {
	case "maxage":
		d, err := parseAge(v)
		if err != nil {
			return nil, err
		}
		return bigtable.MaxAgePolicy(d), nil
	case "maxversions":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("maxversions=%q is not a positive integer", v)
		}
		return bigtable.MaxVersionsPolicy(n), nil
	}
	return nil, fmt.Errorf("unexpected %q in GC policy; want maxage=D, maxversions=N or never", t)
}

// parseAge reads a positive duration; besides time.ParseDuration's units it
// accepts d for days.
func parseAge(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int64
		days, err = strconv.ParseInt(n, 10, 64)
		d = time.Duration(days) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("maxage=%q is not a positive duration like 30d, 12h or 5m", s)
	}
	return d, nil
}

// formatGCPolicy writes a policy back in the grammar parseGCPolicy reads.
func formatGCPolicy(p bigtable.GCPolicy) string {
	switch p := p.(type) {
	case bigtable.MaxAgeGCPolicy:
		return "maxage=" + formatAge(time.Duration(p))
	case bigtable.MaxVersionsGCPolicy:
		return fmt.Sprintf("maxversions=%d", int(p))
	case bigtable.UnionGCPolicy:
		return joinGC(p.Children, " or ")
	case bigtable.IntersectionGCPolicy:
		return joinGC(p.Children, " and ")
	}
	return "never"
}

func joinGC(children []bigtable.GCPolicy, op string) string {
	parts := make([]string, len(children))
	for i, c := range children {
		parts[i] = formatGCPolicy(c)
		if len(children) > 1 && isCompound(c) {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, op)
}

func isCompound(p bigtable.GCPolicy) bool {
	switch p.(type) {
	case bigtable.UnionGCPolicy, bigtable.IntersectionGCPolicy:
		return true
	}
	return false
}

// formatAge writes d in the largest unit that divides it exactly.
func formatAge(d time.Duration) string {
	units := []struct {
		d      time.Duration
		suffix string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}}
	for _, u := range units {
		if d%u.d == 0 {
			return fmt.Sprintf("%d%s", d/u.d, u.suffix)
		}
	}
	return d.String()
}
