package shell

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"cloud.google.com/go/bigtable"
)

// timeLayout is how cells' timestamps are printed (in UTC).
const timeLayout = "2006/01/02-15:04:05.000000"

var rowRule = strings.Repeat("-", 40)

// printRow writes a row as cbt does: a dashed line, the row key, and for
// each cell its column and timestamp, then its quoted value. With keysOnly
// only the dashed line and key are written.
func printRow(w io.Writer, r bigtable.Row, keysOnly bool) {
	fmt.Fprintf(w, "%s\n%s\n", rowRule, r.Key())
	if keysOnly {
		return
	}
	fams := make([]string, 0, len(r))
	for f := range r {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	for _, f := range fams {
		for _, it := range r[f] {
			ts := it.Timestamp.Time().UTC().Format(timeLayout)
			fmt.Fprintf(w, "  %-40s @ %s\n    %q\n", it.Column, ts, it.Value)
		}
	}
}
