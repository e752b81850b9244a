package server_test

import (
	"fmt"
	"sort"
	"strings"

	"cloud.google.com/go/bigtable"
)

// rowString renders a row compactly: key{fam:col@ts=value[labels] ...}.
func rowString(r bigtable.Row) string {
	var b strings.Builder
	b.WriteString(r.Key())
	b.WriteString("{")
	fams := make([]string, 0, len(r))
	for f := range r {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	first := true
	for _, f := range fams {
		for _, it := range r[f] {
			if !first {
				b.WriteString(" ")
			}
			first = false
			fmt.Fprintf(&b, "%s@%d=%s", it.Column, it.Timestamp/1000, it.Value)
			if len(it.Labels) > 0 {
				fmt.Fprintf(&b, "%v", it.Labels)
			}
		}
	}
	b.WriteString("}")
	return b.String()
}
