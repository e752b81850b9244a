package filter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/tabuladb/tabula/internal/base"
)

// MaxDepth is the deepest a filter may nest: the number of filters on the
// longest path from the root to a leaf, counting both. A lone leaf has
// depth 1.
const MaxDepth = 20

// maxLabelLen is the longest label apply_label_transformer accepts.
const maxLabelLen = 15

// Program is a validated filter, ready to run. It is immutable and safe for
// concurrent use. A nil *Program passes every cell.
type Program struct {
	root *node
}

// node is one compiled filter.
type node struct {
	kind Kind
	// kids are the sub-filters of a chain or interleave, or the predicate,
	// true and false filters of a condition (the last two may be nil).
	kids   []*node
	re     *matcher
	family string
	rng    Range
	tStart int64
	tEnd   int64
	n      int
	p      float64
	label  string
	// labelOnly is []string{label}, shared by the cells it labels.
	labelOnly []string
	mask      []byte
	// labels says whether the node's output may carry a label it applied.
	labels bool
}

// Compile validates f and compiles it. Errors are of class
// base.ErrInvalidArgument and name the offending filter by its proto path.
// A nil f compiles to a nil Program, which passes every cell.
func Compile(f *Filter) (*Program, error) {
	if f == nil {
		return nil, nil
	}
	c := compiler{}
	root, err := c.compile(f, "", 1)
	if err != nil {
		return nil, err
	}
	return &Program{root: root}, nil
}

// compiler carries the context of the filter being compiled.
type compiler struct {
	// inCondition says whether the filter is inside a condition, where
	// sink is forbidden.
	inCondition bool
}

func (c *compiler) compile(f *Filter, path string, depth int) (*node, error) {
	if f == nil {
		return nil, base.InvalidArgf("filter: %s: missing filter", path)
	}
	if depth > MaxDepth {
		return nil, base.InvalidArgf("filter: %s: filters nested deeper than %d", path, MaxDepth)
	}
	path = strings.TrimPrefix(path+"."+f.Kind.String(), ".")
	n := &node{kind: f.Kind}
	var err error
	switch f.Kind {
	case KindChain, KindInterleave:
		err = c.compileList(n, f.Filters, path, depth)
	case KindCondition:
		err = c.compileCondition(n, f, path, depth)
	default:
		err = compileLeaf(n, f, c.inCondition)
	}
	if err != nil {
		if !errors.Is(err, base.ErrInvalidArgument) {
			err = base.InvalidArgf("filter: %s: %v", path, err)
		}
		return nil, err
	}
	return n, nil
}

// compileList compiles the sub-filters of a chain or interleave.
func (c *compiler) compileList(n *node, fs []*Filter, path string, depth int) error {
	if len(fs) == 0 {
		return fmt.Errorf("needs at least one sub-filter")
	}
	labelled := 0
	for i, sub := range fs {
		k, err := c.compile(sub, fmt.Sprintf("%s.filters[%d]", path, i), depth+1)
		if err != nil {
			return err
		}
		n.kids = append(n.kids, k)
		if k.labels {
			labelled++
			n.labels = true
		}
	}
	if n.kind == KindChain && labelled > 1 {
		return fmt.Errorf("more than one sub-filter applies a label; a cell may carry only one")
	}
	return nil
}

// compileCondition compiles a condition's predicate and branches.
func (c *compiler) compileCondition(n *node, f *Filter, path string, depth int) error {
	if f.Predicate == nil {
		return fmt.Errorf("missing predicate_filter")
	}
	outer := c.inCondition
	c.inCondition = true
	defer func() { c.inCondition = outer }()
	names := [3]string{"predicate_filter", "true_filter", "false_filter"}
	for i, sub := range [3]*Filter{f.Predicate, f.True, f.False} {
		var k *node
		if sub != nil {
			var err error
			if k, err = c.compile(sub, path+"."+names[i], depth+1); err != nil {
				return err
			}
		}
		n.kids = append(n.kids, k)
	}
	n.labels = n.kids[1] != nil && n.kids[1].labels || n.kids[2] != nil && n.kids[2].labels
	return nil
}

// compileLeaf validates a filter without sub-filters and fills in n.
func compileLeaf(n *node, f *Filter, inCondition bool) error {
	switch f.Kind {
	case KindNone:
		return nil
	case KindSink:
		if inCondition {
			return fmt.Errorf("sink cannot be used within a condition")
		}
		return requireFlag(f)
	case KindPassAll, KindBlockAll, KindStripValue:
		return requireFlag(f)
	case KindRowKeyRegex, KindFamilyRegex, KindQualifierRegex, KindValueRegex:
		return compileRegexLeaf(n, f)
	case KindRowSample:
		return compileSample(n, f)
	case KindColumnRange:
		return compileColumnRange(n, f)
	case KindTimestampRange:
		return compileTimeRange(n, f)
	case KindValueRange:
		n.rng = cloneRange(f.Range)
		return checkRange(f.Range)
	case KindCellsPerRowOffset, KindCellsPerRowLimit, KindCellsPerColumnLimit:
		return compileCount(n, f)
	case KindApplyLabel:
		return compileLabel(n, f)
	case KindValueBitmask:
		n.mask = bytes.Clone(f.Mask)
		return nil
	}
	return fmt.Errorf("unknown filter kind %d", f.Kind)
}

func requireFlag(f *Filter) error {
	if !f.Flag {
		return fmt.Errorf("must be true if set")
	}
	return nil
}

func compileRegexLeaf(n *node, f *Filter) error {
	switch {
	case f.Kind == KindRowKeyRegex && len(f.Regex) == 0:
		return fmt.Errorf("regex must not be empty")
	case f.Kind == KindFamilyRegex && bytes.IndexByte(f.Regex, ':') >= 0:
		return fmt.Errorf("regex must not contain ':'")
	}
	m, err := compileRegex(f.Regex)
	if err != nil {
		return fmt.Errorf("bad RE2 regex %q: %v", f.Regex, err)
	}
	n.re = m
	return nil
}

func compileSample(n *node, f *Filter) error {
	// The negated test also rejects NaN.
	if !(f.Probability > 0 && f.Probability < 1) {
		return fmt.Errorf("probability %v not strictly between 0 and 1", f.Probability)
	}
	n.p = f.Probability
	return nil
}

func compileColumnRange(n *node, f *Filter) error {
	if f.Family == "" {
		return fmt.Errorf("family_name must not be empty")
	}
	n.family = f.Family
	n.rng = cloneRange(f.Range)
	return checkRange(f.Range)
}

func compileTimeRange(n *node, f *Filter) error {
	switch {
	case f.TimeStart < 0 || f.TimeEnd < 0:
		return fmt.Errorf("timestamps must not be negative")
	case f.TimeEnd != 0 && f.TimeStart > f.TimeEnd:
		return fmt.Errorf("start %d is after end %d", f.TimeStart, f.TimeEnd)
	}
	n.tStart, n.tEnd = f.TimeStart, f.TimeEnd
	return nil
}

func compileCount(n *node, f *Filter) error {
	if f.N < 0 || f.N == 0 && f.Kind != KindCellsPerRowOffset {
		return fmt.Errorf("argument %d must be > 0", f.N)
	}
	n.n = int(f.N)
	return nil
}

func compileLabel(n *node, f *Filter) error {
	if !validLabel(f.Label) {
		return fmt.Errorf("label %q must be 1 to %d characters of [a-z0-9-]", f.Label, maxLabelLen)
	}
	n.label = f.Label
	n.labelOnly = []string{f.Label}[:1:1]
	n.labels = true
	return nil
}

func validLabel(s string) bool {
	if len(s) == 0 || len(s) > maxLabelLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// checkRange rejects a range whose start lies after its end. A range that
// is empty because a bound is open (["a", "a")) is allowed and matches
// nothing.
func checkRange(r Range) error {
	for _, b := range [2]Bound{r.Start, r.End} {
		if b.Kind > Open {
			return fmt.Errorf("unknown bound kind %d", b.Kind)
		}
	}
	if r.Start.Kind != Unbounded && r.End.Kind != Unbounded &&
		bytes.Compare(r.Start.Value, r.End.Value) > 0 {
		return fmt.Errorf("start %q is after end %q", r.Start.Value, r.End.Value)
	}
	return nil
}

func cloneRange(r Range) Range {
	r.Start.Value = bytes.Clone(r.Start.Value)
	r.End.Value = bytes.Clone(r.End.Value)
	return r
}
