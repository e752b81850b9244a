package filter

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
)

// nest wraps leaf in chains until the tree is depth filters deep.
func nest(depth int, leaf *Filter) *Filter {
	f := leaf
	for i := 1; i < depth; i++ {
		f = chain(f)
	}
	return f
}

func TestCompileRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *Filter
		want string // a substring of the error
	}{
		{"depth 21", nest(21, pass), "deeper than 20"},
		{"depth 21 via condition", nest(20, cond(pass, pass, nil)), "deeper than 20"},
		{"bad regex", regex(KindValueRegex, `a(`), "value_regex_filter: bad RE2 regex"},
		{"unbalanced regex cannot escape anchors", regex(KindValueRegex, `a)|(b`), "bad RE2 regex"},
		{"\\C in a class", regex(KindValueRegex, `[\C]`), "bad RE2 regex"},
		{"empty row key regex", regex(KindRowKeyRegex, ``), "must not be empty"},
		{"colon in family regex", regex(KindFamilyRegex, `a:b`), "must not contain ':'"},
		{"column range start after end", columns("a", closed("z"), open("a")), "start \"z\" is after end \"a\""},
		{"column range without family", columns("", Bound{}, Bound{}), "family_name"},
		{"value range start after end", valueRange(open("b"), closed("a")), "after end"},
		{"bad bound kind", valueRange(Bound{Kind: 7}, Bound{}), "bound kind"},
		{"timestamp range backwards", timeRange(20, 10), "after end"},
		{"negative timestamp", timeRange(-1, 0), "negative"},
		{"negative offset", count(KindCellsPerRowOffset, -1), "must be > 0"},
		{"zero row limit", count(KindCellsPerRowLimit, 0), "must be > 0"},
		{"negative column limit", count(KindCellsPerColumnLimit, -3), "must be > 0"},
		{"sample 0", sample(0), "probability"},
		{"sample 1", sample(1), "probability"},
		{"sample NaN", sample(math.NaN()), "probability"},
		{"empty label", label(""), "label"},
		{"long label", label("abcdefghijklmnop"), "label"},
		{"upper-case label", label("Foo"), "label"},
		{"two labels in a chain", chain(label("a"), interleave(pass, label("b"))), "more than one sub-filter applies a label"},
		{"two labels in a nested chain", chain(pass, chain(label("a"), label("b"))), "chain.filters[1].chain: more than one"},
		{"sink in predicate", cond(sink, pass, nil), "sink cannot be used within a condition"},
		{"sink in true branch", cond(pass, chain(pass, sink), nil), "condition.true_filter.chain.filters[1].sink"},
		{"sink in false branch", cond(pass, nil, sink), "sink cannot"},
		{"missing predicate", cond(nil, pass, pass), "predicate"},
		{"empty chain", chain(), "at least one"},
		{"empty interleave", interleave(), "at least one"},
		{"nil sub-filter", chain(pass, nil), "filters[1]: missing"},
		{"pass_all false", &Filter{Kind: KindPassAll}, "must be true"},
		{"block_all false", &Filter{Kind: KindBlockAll}, "must be true"},
		{"sink false", &Filter{Kind: KindSink}, "must be true"},
		{"strip false", &Filter{Kind: KindStripValue}, "must be true"},
		{"unknown kind", &Filter{Kind: numKinds}, "unknown filter kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.f)
			if err == nil {
				t.Fatalf("Compile succeeded: %+v", p)
			}
			if !errors.Is(err, base.ErrInvalidArgument) {
				t.Errorf("error %v is not ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestCompileAccepts(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *Filter
	}{
		{"depth 20", nest(20, pass)},
		{"labels in interleave", interleave(label("a"), label("b"))},
		{"one labelled sub-filter in chain", chain(pass, interleave(label("a"), label("b")), strip)},
		{"label in predicate and chain", chain(label("a"), cond(label("b"), pass, nil))},
		{"sink in interleave in chain", chain(pass, interleave(sink, pass))},
		{"15-char label", label("abc-def-123-xyz")},
		{"empty value regex", regex(KindValueRegex, ``)},
		{"point column range", columns("a", closed("x"), closed("x"))},
		{"equal timestamps", timeRange(10, 10)},
		{"offset zero", count(KindCellsPerRowOffset, 0)},
	} {
		if _, err := Compile(tc.f); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
