package api

import (
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"google.golang.org/protobuf/proto"

	"github.com/tabuladb/tabula/internal/filter"
)

// maxFilterBytes is the limit on a serialized RowFilter (DESIGN §2); the
// depth limit is checked by filter.Compile.
const maxFilterBytes = 20 << 10

// compileFilter converts and compiles a request's filter; nil passes all.
func compileFilter(f *btpb.RowFilter) (*filter.Program, error) {
	if f == nil {
		return nil, nil
	}
	if n := proto.Size(f); n > maxFilterBytes {
		return nil, invalidf("filter of %d bytes is over the limit of %d", n, maxFilterBytes)
	}
	return filter.Compile(toFilter(f, 0))
}

// toFilter converts a RowFilter. It stops descending past the depth limit,
// leaving a too-deep node that Compile rejects, so a hostile nesting costs
// no more than the limit.
func toFilter(f *btpb.RowFilter, depth int) *filter.Filter {
	if f == nil {
		return nil
	}
	out := &filter.Filter{}
	if depth > filter.MaxDepth {
		out.Kind = filter.KindChain
		out.Filters = []*filter.Filter{{Kind: filter.KindChain}}
		return out
	}
	if !toCompound(f, out, depth) {
		toLeaf(f, out)
	}
	return out
}

// toCompound converts chain, interleave and condition.
func toCompound(f *btpb.RowFilter, out *filter.Filter, depth int) bool {
	switch x := f.Filter.(type) {
	case *btpb.RowFilter_Chain_:
		out.Kind, out.Filters = filter.KindChain, toFilters(x.Chain.GetFilters(), depth)
	case *btpb.RowFilter_Interleave_:
		out.Kind, out.Filters = filter.KindInterleave, toFilters(x.Interleave.GetFilters(), depth)
	case *btpb.RowFilter_Condition_:
		c := x.Condition
		out.Kind = filter.KindCondition
		out.Predicate = toFilter(c.PredicateFilter, depth+1)
		out.True, out.False = toFilter(c.TrueFilter, depth+1), toFilter(c.FalseFilter, depth+1)
	default:
		return false
	}
	return true
}

func toFilters(fs []*btpb.RowFilter, depth int) []*filter.Filter {
	out := make([]*filter.Filter, len(fs))
	for i, f := range fs {
		out[i] = toFilter(f, depth+1)
	}
	return out
}

// toLeaf converts the filters that hold no other filter.
func toLeaf(f *btpb.RowFilter, out *filter.Filter) {
	switch x := f.Filter.(type) {
	case *btpb.RowFilter_Sink:
		out.Kind, out.Flag = filter.KindSink, x.Sink
	case *btpb.RowFilter_PassAllFilter:
		out.Kind, out.Flag = filter.KindPassAll, x.PassAllFilter
	case *btpb.RowFilter_BlockAllFilter:
		out.Kind, out.Flag = filter.KindBlockAll, x.BlockAllFilter
	case *btpb.RowFilter_StripValueTransformer:
		out.Kind, out.Flag = filter.KindStripValue, x.StripValueTransformer
	case *btpb.RowFilter_RowKeyRegexFilter:
		out.Kind, out.Regex = filter.KindRowKeyRegex, x.RowKeyRegexFilter
	case *btpb.RowFilter_FamilyNameRegexFilter:
		out.Kind, out.Regex = filter.KindFamilyRegex, []byte(x.FamilyNameRegexFilter)
	case *btpb.RowFilter_ColumnQualifierRegexFilter:
		out.Kind, out.Regex = filter.KindQualifierRegex, x.ColumnQualifierRegexFilter
	case *btpb.RowFilter_ValueRegexFilter:
		out.Kind, out.Regex = filter.KindValueRegex, x.ValueRegexFilter
	case *btpb.RowFilter_RowSampleFilter:
		out.Kind, out.Probability = filter.KindRowSample, x.RowSampleFilter
	case *btpb.RowFilter_ColumnRangeFilter:
		out.Kind, out.Family, out.Range = filter.KindColumnRange, x.ColumnRangeFilter.GetFamilyName(), columnRange(x.ColumnRangeFilter)
	case *btpb.RowFilter_TimestampRangeFilter:
		r := x.TimestampRangeFilter
		out.Kind, out.TimeStart, out.TimeEnd = filter.KindTimestampRange, r.GetStartTimestampMicros(), r.GetEndTimestampMicros()
	case *btpb.RowFilter_ValueRangeFilter:
		out.Kind, out.Range = filter.KindValueRange, valueRange(x.ValueRangeFilter)
	case *btpb.RowFilter_CellsPerRowOffsetFilter:
		out.Kind, out.N = filter.KindCellsPerRowOffset, x.CellsPerRowOffsetFilter
	case *btpb.RowFilter_CellsPerRowLimitFilter:
		out.Kind, out.N = filter.KindCellsPerRowLimit, x.CellsPerRowLimitFilter
	case *btpb.RowFilter_CellsPerColumnLimitFilter:
		out.Kind, out.N = filter.KindCellsPerColumnLimit, x.CellsPerColumnLimitFilter
	case *btpb.RowFilter_ApplyLabelTransformer:
		out.Kind, out.Label = filter.KindApplyLabel, x.ApplyLabelTransformer
	case *btpb.RowFilter_ValueBitmaskFilter:
		out.Kind, out.Mask = filter.KindValueBitmask, x.ValueBitmaskFilter.GetMask()
	}
}

func columnRange(r *btpb.ColumnRange) filter.Range {
	var out filter.Range
	switch s := r.GetStartQualifier().(type) {
	case *btpb.ColumnRange_StartQualifierClosed:
		out.Start = filter.Bound{Kind: filter.Closed, Value: s.StartQualifierClosed}
	case *btpb.ColumnRange_StartQualifierOpen:
		out.Start = filter.Bound{Kind: filter.Open, Value: s.StartQualifierOpen}
	}
	switch e := r.GetEndQualifier().(type) {
	case *btpb.ColumnRange_EndQualifierClosed:
		out.End = filter.Bound{Kind: filter.Closed, Value: e.EndQualifierClosed}
	case *btpb.ColumnRange_EndQualifierOpen:
		out.End = filter.Bound{Kind: filter.Open, Value: e.EndQualifierOpen}
	}
	return out
}

func valueRange(r *btpb.ValueRange) filter.Range {
	var out filter.Range
	switch s := r.GetStartValue().(type) {
	case *btpb.ValueRange_StartValueClosed:
		out.Start = filter.Bound{Kind: filter.Closed, Value: s.StartValueClosed}
	case *btpb.ValueRange_StartValueOpen:
		out.Start = filter.Bound{Kind: filter.Open, Value: s.StartValueOpen}
	}
	switch e := r.GetEndValue().(type) {
	case *btpb.ValueRange_EndValueClosed:
		out.End = filter.Bound{Kind: filter.Closed, Value: e.EndValueClosed}
	case *btpb.ValueRange_EndValueOpen:
		out.End = filter.Bound{Kind: filter.Open, Value: e.EndValueOpen}
	}
	return out
}
