// Package filter evaluates Cloud Bigtable RowFilters
// (google.bigtable.v2.RowFilter) on one row.
//
// The API layer converts a RowFilter proto into a [Filter] tree, one [Kind]
// per case of the proto's oneof; [Compile] validates it and precompiles its
// regular expressions into a [Program]; [Program.Apply] runs the program on a
// [base.Row] and returns the cells that survive, with their labels, in the
// row's order (family ↑, qualifier ↑, timestamp ↓). An empty result means the
// row is not returned. A nil *Program passes every cell. The package imports
// no protobuf code and keeps no global state: randomness for
// row_sample_filter is passed in.
//
// # Semantics
//
//   - Chain feeds each sub-filter's output to the next. Interleave gives each
//     sub-filter a copy of its input and merges all outputs back into row
//     order; duplicates are kept, and for equal (family, qualifier,
//     timestamp) the output of an earlier sub-filter comes first.
//   - Condition runs its predicate on its input; if the predicate outputs any
//     cell the true filter runs on the input, otherwise the false filter. A
//     missing branch outputs nothing.
//   - Sink copies its input straight to the final result and outputs nothing
//     to its parent. The sunk cells are merged into the result in row order,
//     ahead of equal cells from the normal output. Sink may not appear inside
//     a Condition (predicate or either branch), as Cloud Bigtable requires.
//   - Regular expressions are RE2 (Go's regexp) in raw byte mode, like
//     RE2::Latin1: each byte of the pattern and of the subject stands for the
//     code point of the same value, so `.` matches any byte but '\n', `\C`
//     matches any byte, `\xff` matches the byte 0xff, and a multi-byte UTF-8
//     sequence in a pattern matches those same bytes. Matches are full
//     matches: the regex must match the whole key, family, qualifier or
//     value.
//   - cells_per_row_offset and cells_per_row_limit count cells across the row
//     in order; cells_per_column_limit counts within each (family,
//     qualifier), newest first. Duplicates from an Interleave count
//     separately.
//   - timestamp_range_filter is [start, end); end 0 means no end.
//   - apply_label_transformer adds a label. As in Cloud Bigtable, a Chain may
//     have at most one sub-filter that can apply a label (labels inside a
//     Condition's predicate do not count), so a cell carries at most one.
//   - Compile rejects: nesting deeper than MaxDepth (a lone leaf is depth
//     1); an empty chain or interleave (one sub-filter is accepted); a
//     condition without predicate; a false sink, pass_all, block_all or
//     strip_value flag; a bad regex, an empty row key regex, a ':' in a
//     family regex; a column range without family; a range whose start is
//     after its end; negative timestamps; a negative count, or a zero limit;
//     a sample probability outside (0, 1); a label not of 1–15 [a-z0-9-].
//   - row_sample_filter keeps all or none of its input, drawing one number
//     from rnd each time it sees a non-empty input.
package filter
