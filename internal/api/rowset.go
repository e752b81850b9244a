package api

import (
	"bytes"
	"slices"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
)

// span is a range of rows [start, end); a nil end is the end of the table.
type span struct{ start, end []byte }

// toSpans converts a RowSet to sorted, disjoint spans. An empty RowSet is
// the whole table.
func toSpans(rs *btpb.RowSet) ([]span, error) {
	if len(rs.GetRowKeys()) == 0 && len(rs.GetRowRanges()) == 0 {
		return []span{{start: []byte{}}}, nil
	}
	var out []span
	for _, k := range rs.GetRowKeys() {
		if len(k) == 0 {
			return nil, invalidf("empty row key in row set")
		}
		out = append(out, span{start: k, end: append(bytes.Clone(k), 0)})
	}
	for _, r := range rs.GetRowRanges() {
		sp, err := toSpan(r)
		if err != nil {
			return nil, err
		}
		if sp.end == nil || bytes.Compare(sp.start, sp.end) < 0 {
			out = append(out, sp)
		}
	}
	return mergeSpans(out), nil
}

func toSpan(r *btpb.RowRange) (span, error) {
	var sp span
	switch k := r.StartKey.(type) {
	case *btpb.RowRange_StartKeyClosed:
		sp.start = k.StartKeyClosed
	case *btpb.RowRange_StartKeyOpen:
		sp.start = append(bytes.Clone(k.StartKeyOpen), 0)
	}
	switch k := r.EndKey.(type) {
	case *btpb.RowRange_EndKeyClosed:
		if len(k.EndKeyClosed) > 0 {
			sp.end = append(bytes.Clone(k.EndKeyClosed), 0)
		}
	case *btpb.RowRange_EndKeyOpen:
		if len(k.EndKeyOpen) > 0 {
			sp.end = k.EndKeyOpen
		}
	}
	if sp.start == nil {
		sp.start = []byte{}
	}
	if sp.end != nil && bytes.Compare(sp.start, sp.end) > 0 {
		return span{}, invalidf("row range start %q is after its end %q", sp.start, sp.end)
	}
	return sp, nil
}

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(in []span) []span {
	slices.SortFunc(in, func(a, b span) int { return bytes.Compare(a.start, b.start) })
	var out []span
	for _, sp := range in {
		if n := len(out); n > 0 && (out[n-1].end == nil || bytes.Compare(sp.start, out[n-1].end) <= 0) {
			if out[n-1].end != nil && (sp.end == nil || bytes.Compare(sp.end, out[n-1].end) > 0) {
				out[n-1].end = sp.end
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}
