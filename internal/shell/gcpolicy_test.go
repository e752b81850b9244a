package shell

import (
	"strings"
	"testing"
	"time"
)

func TestParseGCPolicy(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want is the policy written back by formatGCPolicy
	}{
		{"never", "never"},
		{"maxversions=1", "maxversions=1"},
		{"maxage=30d", "maxage=30d"},
		{"maxage=36h", "maxage=36h"},
		{"maxage=90m", "maxage=90m"},
		{"maxage=1500ms", "maxage=1500ms"},
		{"maxage=48h", "maxage=2d"},
		{"maxage=1d or maxversions=2", "maxage=1d or maxversions=2"},
		{"maxage=1d OR maxversions=2", "maxage=1d or maxversions=2"},
		{"maxage=1d||maxversions=2", "maxage=1d or maxversions=2"},
		{"maxage=1d && maxversions=2", "maxage=1d and maxversions=2"},
		{"maxage=1d and maxversions=2 or maxversions=9", "(maxage=1d and maxversions=2) or maxversions=9"},
		{"maxversions=9 or maxage=1d and maxversions=2", "maxversions=9 or (maxage=1d and maxversions=2)"},
		{"(maxversions=9 or maxage=1d) and maxversions=2", "(maxversions=9 or maxage=1d) and maxversions=2"},
		{"((maxversions=9))", "maxversions=9"},
		{"maxversions=1 or maxversions=2 or maxversions=3", "maxversions=1 or maxversions=2 or maxversions=3"},
	} {
		p, err := parseGCPolicy(tc.in)
		if err != nil {
			t.Errorf("parseGCPolicy(%q): %v", tc.in, err)
			continue
		}
		if got := formatGCPolicy(p); got != tc.want {
			t.Errorf("parseGCPolicy(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseGCPolicyErrors(t *testing.T) {
	for _, in := range []string{
		"", "forever", "maxversions=0", "maxversions=-1", "maxversions=x", "maxage=", "maxage=0d",
		"maxage=-5m", "maxage=5", "maxage=5y", "maxage=1d or", "and maxage=1d", "maxage=1d maxversions=2",
		"(maxage=1d", "maxage=1d)", "never or maxversions=1", "maxversions=1 xor maxage=1d",
	} {
		if p, err := parseGCPolicy(in); err == nil {
			t.Errorf("parseGCPolicy(%q) = %v, want an error", in, p)
		}
	}
}

func TestFormatAge(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{24 * time.Hour, "1d"}, {25 * time.Hour, "25h"}, {61 * time.Minute, "61m"},
		{90 * time.Second, "90s"}, {1500 * time.Millisecond, "1500ms"}, {1500 * time.Microsecond, "1.5ms"},
	} {
		if got := formatAge(tc.d); got != tc.want {
			t.Errorf("formatAge(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestParseSetLGMask(t *testing.T) {
	for _, tc := range []struct {
		args []string
		mask string
	}{
		{nil, ""},
		{[]string{"inmemory=true"}, "in_memory"},
		{[]string{"bloom=false", "compression=zstd"}, "compression,bloom_filter"},
		{[]string{"blocksize=4096", "inmemory=false", "compression=twopass", "bloom=true"},
			"in_memory,compression,block_size,bloom_filter"},
	} {
		req, err := parseSetLG(tc.args)
		if err != nil {
			t.Errorf("parseSetLG(%q): %v", tc.args, err)
			continue
		}
		if got := strings.Join(req.UpdateMask, ","); got != tc.mask {
			t.Errorf("parseSetLG(%q) mask %q, want %q", tc.args, got, tc.mask)
		}
	}
}
