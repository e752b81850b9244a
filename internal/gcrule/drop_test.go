package gcrule

import (
	"testing"
	"time"
)

// Paper §5: a family's GC rule keeps the last n versions of a cell, or only
// versions new enough, or a combination.
func TestDrop(t *testing.T) {
	const now = int64(1_000_000_000) // µs
	const ms = int64(1000)
	old := now - 10*ms  // 10 ms old
	young := now - 1*ms // 1 ms old
	edge := now - 5*ms  // exactly 5 ms old: kept by maxage=5ms
	tests := []struct {
		name  string
		rule  Rule
		index int
		ts    int64
		want  bool
	}{
		{"none keeps", None(), 1000, 0, false},
		{"zero keeps", Rule{}, 5, old, false},
		{"maxversions keeps newest", MaxVersions(2), 0, old, false},
		{"maxversions keeps second", MaxVersions(2), 1, old, false},
		{"maxversions drops third", MaxVersions(2), 2, young, true},
		{"maxage drops old", MaxAge(5 * time.Millisecond), 0, old, true},
		{"maxage keeps young", MaxAge(5 * time.Millisecond), 0, young, false},
		{"maxage keeps the edge", MaxAge(5 * time.Millisecond), 0, edge, false},
		{"maxage drops past the edge", MaxAge(5 * time.Millisecond), 0, edge - 1, true},
		{"union any: versions", Union(MaxVersions(1), MaxAge(5*time.Millisecond)), 1, young, true},
		{"union any: age", Union(MaxVersions(1), MaxAge(5*time.Millisecond)), 0, old, true},
		{"union none", Union(MaxVersions(1), MaxAge(5*time.Millisecond)), 0, young, false},
		{"intersection all", Intersection(MaxVersions(1), MaxAge(5*time.Millisecond)), 1, old, true},
		{"intersection one: versions", Intersection(MaxVersions(1), MaxAge(5*time.Millisecond)), 1, young, false},
		{"intersection one: age", Intersection(MaxVersions(1), MaxAge(5*time.Millisecond)), 0, old, false},
		{"empty union keeps", Union(), 3, old, false},
		{"empty intersection keeps", Intersection(), 3, old, false},
		{"intersection with none keeps", Intersection(MaxVersions(1), None()), 3, old, false},
		{"union with none", Union(MaxVersions(1), None()), 3, old, true},
		// (maxage=5ms && maxversions=2) || maxversions=5
		{"nested: old beyond 2", nested(), 2, old, true},
		{"nested: old within 2", nested(), 1, old, false},
		{"nested: young beyond 2", nested(), 3, young, false},
		{"nested: young beyond 5", nested(), 5, young, true},
	}
	for _, tt := range tests {
		if got := tt.rule.Drop(tt.index, tt.ts, now); got != tt.want {
			t.Errorf("%s: %v.Drop(%d, %d) = %v, want %v", tt.name, tt.rule, tt.index, tt.ts, got, tt.want)
		}
	}
}

func nested() Rule {
	return Union(Intersection(MaxAge(5*time.Millisecond), MaxVersions(2)), MaxVersions(5))
}

func TestDropDoesNotAllocate(t *testing.T) {
	r := Union(Intersection(MaxAge(time.Hour), MaxVersions(2)), MaxVersions(5), Intersection(None()))
	n := testing.AllocsPerRun(100, func() { r.Drop(3, 10, 1e12) })
	if n != 0 {
		t.Fatalf("Drop allocates %v times", n)
	}
}

func TestUnionCopiesChildren(t *testing.T) {
	rules := []Rule{MaxVersions(1)}
	u := Union(rules...)
	rules[0] = MaxVersions(9)
	if u.Children()[0].MaxVersionsValue() != 1 {
		t.Fatal("Union shares the caller's slice")
	}
	u.Children()[0] = MaxVersions(7)
	if u.Children()[0].MaxVersionsValue() != 1 {
		t.Fatal("Children shares the rule's slice")
	}
}

func TestAccessors(t *testing.T) {
	if r := MaxVersions(3); r.Kind() != KindMaxVersions || r.MaxVersionsValue() != 3 || r.IsNone() {
		t.Errorf("MaxVersions(3): %+v", r)
	}
	if r := MaxAge(time.Hour); r.Kind() != KindMaxAge || r.MaxAgeValue() != time.Hour {
		t.Errorf("MaxAge(1h): %+v", r)
	}
	if !None().IsNone() || !(Rule{}).IsNone() || !None().Equal(Rule{}) {
		t.Error("None is not the zero rule")
	}
	if k := Intersection(None()).Kind(); k != KindIntersection || k.String() != "intersection" {
		t.Errorf("kind %v", k)
	}
}

func TestVersionLimit(t *testing.T) {
	cases := []struct {
		name string
		rule Rule
		n    int
		ok   bool
	}{
		{"none", None(), 0, false},
		{"max versions", MaxVersions(3), 3, true},
		{"max age", MaxAge(time.Hour), 0, false},
		{"union takes the least", Union(MaxVersions(5), MaxAge(time.Hour), MaxVersions(2)), 2, true},
		{"union of ages", Union(MaxAge(time.Hour)), 0, false},
		{"intersection takes the most", Intersection(MaxVersions(5), MaxVersions(2)), 5, true},
		{"intersection with an age", Intersection(MaxVersions(1), MaxAge(time.Hour)), 0, false},
		{"empty intersection", Intersection(), 0, false},
	}
	for _, c := range cases {
		n, ok := c.rule.VersionLimit()
		if n != c.n || ok != c.ok {
			t.Errorf("%s: VersionLimit = %d, %v; want %d, %v", c.name, n, ok, c.n, c.ok)
		}
		if ok {
			// Drop agrees: from the limit on, every version goes, old or new.
			for _, ts := range []int64{0, 1 << 50} {
				if !c.rule.Drop(n, ts, 1<<50) {
					t.Errorf("%s: keeps index %d at ts %d", c.name, n, ts)
				}
			}
		}
	}
}
