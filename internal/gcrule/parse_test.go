package gcrule

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tabuladb/tabula/internal/base"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Rule
		str  string
	}{
		{"never", None(), "never"},
		{"maxversions=2", MaxVersions(2), "maxversions=2"},
		{" maxversions = 2 ", MaxVersions(2), "maxversions=2"},
		{"maxage=5ms", MaxAge(5 * time.Millisecond), "maxage=5ms"},
		{"maxage=1d", MaxAge(24 * time.Hour), "maxage=1d"},
		{"maxage=36h", MaxAge(36 * time.Hour), "maxage=36h"},
		{"maxage=48h", MaxAge(48 * time.Hour), "maxage=2d"},
		{"maxage=90m", MaxAge(90 * time.Minute), "maxage=90m"},
		{"maxage=1000ms", MaxAge(time.Second), "maxage=1s"},
		{"maxage=7s", MaxAge(7 * time.Second), "maxage=7s"},
		{"maxage=1d || maxversions=2", Union(MaxAge(24*time.Hour), MaxVersions(2)), "maxage=1d || maxversions=2"},
		{"maxage=1d or maxversions=2", Union(MaxAge(24*time.Hour), MaxVersions(2)), "maxage=1d || maxversions=2"},
		{"maxage=1d AND maxversions=2", Intersection(MaxAge(24*time.Hour), MaxVersions(2)), "maxage=1d && maxversions=2"},
		{
			"maxage=1d && maxversions=2 || maxversions=5",
			Union(Intersection(MaxAge(24*time.Hour), MaxVersions(2)), MaxVersions(5)),
			"(maxage=1d && maxversions=2) || maxversions=5",
		},
		{
			"maxversions=5 || maxage=1d && maxversions=2",
			Union(MaxVersions(5), Intersection(MaxAge(24*time.Hour), MaxVersions(2))),
			"maxversions=5 || (maxage=1d && maxversions=2)",
		},
		{
			"(maxversions=1 || maxversions=2) && maxage=1h",
			Intersection(Union(MaxVersions(1), MaxVersions(2)), MaxAge(time.Hour)),
			"(maxversions=1 || maxversions=2) && maxage=1h",
		},
		{
			"(maxversions=1 || maxversions=2) || maxversions=3",
			Union(Union(MaxVersions(1), MaxVersions(2)), MaxVersions(3)),
			"(maxversions=1 || maxversions=2) || maxversions=3",
		},
		{"((maxversions=1))", MaxVersions(1), "maxversions=1"},
		{"maxversions=1 || maxversions=2 || maxversions=3", Union(MaxVersions(1), MaxVersions(2), MaxVersions(3)), "maxversions=1 || maxversions=2 || maxversions=3"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !got.Equal(tt.want) {
			t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if s := got.String(); s != tt.str {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, s, tt.str)
		}
		again, err := Parse(got.String())
		if err != nil || !again.Equal(got) {
			t.Errorf("round trip of %q: %v, %v", got, again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	bad := []string{
		"", "  ", "maxversions", "maxversions=", "maxversions=x", "maxversions=0",
		"maxversions=-1", "maxage=5", "maxage=ms", "maxage=5us", "maxage=0ms",
		"maxage=1.5h", "maxage=99999999999999999999d", "maxage=9999999999999d",
		"maxversions=1 ||", "|| maxversions=1", "(maxversions=1", "maxversions=1)",
		"maxversions=1 maxversions=2", "maxversions=1 & maxversions=2",
		"maxversions=1 | maxversions=2", "forever", "()", "maxversions=1 && && maxversions=2",
		strings.Repeat("(", MaxDepth+1) + "maxversions=1" + strings.Repeat(")", MaxDepth+1),
		strings.Repeat("maxversions=1 || ", maxParseLen/16) + "never",
	}
	for _, s := range bad {
		if r, err := Parse(s); !errors.Is(err, base.ErrInvalidArgument) {
			t.Errorf("Parse(%q) = %v, %v; want invalid argument", s, r, err)
		}
	}
}

func TestStringOfInvalidRules(t *testing.T) {
	tests := map[string]Rule{
		"maxage=1.5ms":  MaxAge(1500 * time.Microsecond),
		"maxage=0s":     MaxAge(0),
		"()":            Union(),
		"maxversions=0": MaxVersions(0),
	}
	for want, r := range tests {
		if got := r.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("(maxage=1d && maxversions=2) || maxversions=5")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			if !errors.Is(err, base.ErrInvalidArgument) {
				t.Fatalf("Parse(%q): error %v is not invalid argument", s, err)
			}
			return
		}
		again, err := Parse(r.String())
		if err != nil || !again.Equal(r) {
			t.Fatalf("Parse(%q) = %v; reparse gives %v, %v", s, r, again, err)
		}
	})
}
