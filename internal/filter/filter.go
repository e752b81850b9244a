package filter

import "github.com/tabuladb/tabula/internal/base"

// Kind says which RowFilter a Filter is: one per case of the proto's oneof.
type Kind uint8

const (
	// KindNone is a RowFilter with no case set; it passes every cell.
	KindNone Kind = iota
	// KindChain runs Filters in sequence.
	KindChain
	// KindInterleave runs each of Filters on a copy and merges the outputs.
	KindInterleave
	// KindCondition runs True or False depending on Predicate.
	KindCondition
	// KindSink copies its input to the final result (Flag must be true).
	KindSink
	// KindPassAll passes every cell (Flag must be true).
	KindPassAll
	// KindBlockAll passes no cell (Flag must be true).
	KindBlockAll
	// KindRowKeyRegex passes the row if Regex fully matches its key.
	KindRowKeyRegex
	// KindRowSample passes the row with probability Probability.
	KindRowSample
	// KindFamilyRegex passes cells whose family Regex fully matches.
	KindFamilyRegex
	// KindQualifierRegex passes cells whose qualifier Regex fully matches.
	KindQualifierRegex
	// KindColumnRange passes cells of Family whose qualifier is in Range.
	KindColumnRange
	// KindTimestampRange passes cells with TimeStart ≤ ts < TimeEnd.
	KindTimestampRange
	// KindValueRegex passes cells whose value Regex fully matches.
	KindValueRegex
	// KindValueRange passes cells whose value is in Range.
	KindValueRange
	// KindCellsPerRowOffset skips the first N cells of the row.
	KindCellsPerRowOffset
	// KindCellsPerRowLimit passes the first N cells of the row.
	KindCellsPerRowLimit
	// KindCellsPerColumnLimit passes the newest N cells of each column.
	KindCellsPerColumnLimit
	// KindStripValue empties every value (Flag must be true).
	KindStripValue
	// KindApplyLabel adds Label to every cell.
	KindApplyLabel
	// KindValueBitmask passes cells whose value v has len(v) == len(Mask)
	// and v&Mask == Mask.
	KindValueBitmask
	numKinds
)

var kindNames = [numKinds]string{
	"none", "chain", "interleave", "condition", "sink", "pass_all_filter",
	"block_all_filter", "row_key_regex_filter", "row_sample_filter",
	"family_name_regex_filter", "column_qualifier_regex_filter",
	"column_range_filter", "timestamp_range_filter", "value_regex_filter",
	"value_range_filter", "cells_per_row_offset_filter",
	"cells_per_row_limit_filter", "cells_per_column_limit_filter",
	"strip_value_transformer", "apply_label_transformer",
	"value_bitmask_filter",
}

// String returns the proto field name of k.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "kind?"
}

// BoundKind says whether a Bound is absent, inclusive or exclusive.
type BoundKind uint8

const (
	// Unbounded means the proto's bound oneof is unset. An unbounded start
	// is the empty string inclusive; an unbounded end is infinity.
	Unbounded BoundKind = iota
	// Closed includes Value in the range.
	Closed
	// Open excludes Value from the range.
	Open
)

// Bound is one end of a qualifier or value range.
type Bound struct {
	Kind  BoundKind
	Value []byte
}

// Range is a range of qualifiers (column_range_filter) or of values
// (value_range_filter).
type Range struct {
	Start, End Bound
}

// Filter is a RowFilter. Only the fields its Kind names are read.
type Filter struct {
	Kind Kind
	// Filters are the sub-filters of a chain or interleave.
	Filters []*Filter
	// Predicate, True and False make a condition; True and False may be nil.
	Predicate, True, False *Filter
	// Flag is the bool of sink, pass_all, block_all and strip_value.
	Flag bool
	// Regex is the pattern of the four regex filters.
	Regex []byte
	// Family is the family of a column range.
	Family string
	// Range is the qualifier range of a column range, or a value range.
	Range Range
	// TimeStart and TimeEnd bound a timestamp range in microseconds;
	// TimeEnd 0 means no end.
	TimeStart, TimeEnd int64
	// N is the count of cells_per_row_offset, cells_per_row_limit and
	// cells_per_column_limit.
	N int32
	// Probability is the row_sample_filter probability.
	Probability float64
	// Label is the apply_label_transformer label.
	Label string
	// Mask is the value_bitmask_filter mask.
	Mask []byte
}

// Cell is a cell in a filter's output: a row cell and the labels that
// apply_label_transformer gave it. Qualifier and Value alias the input row.
type Cell struct {
	base.Cell
	Labels []string
}
