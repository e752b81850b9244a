package api

import (
	"encoding/binary"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/tablet"
)

// toMutations converts a request's mutations; the engine checks them
// against the table's schema and limits when it applies them.
func toMutations(in []*btpb.Mutation) ([]base.Mutation, error) {
	if len(in) == 0 {
		return nil, invalidf("no mutations")
	}
	if len(in) > tablet.MaxMutations {
		return nil, invalidf("%d mutations is over the limit of %d", len(in), tablet.MaxMutations)
	}
	out := make([]base.Mutation, len(in))
	for i, m := range in {
		if err := toMutation(m, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func toMutation(in *btpb.Mutation, m *base.Mutation) error {
	switch x := in.GetMutation().(type) {
	case *btpb.Mutation_SetCell_:
		c := x.SetCell
		*m = base.Mutation{Kind: base.KindPut, Family: c.FamilyName, Qualifier: c.ColumnQualifier, Timestamp: c.TimestampMicros, Value: c.Value}
		if c.TimestampMicros < base.ServerTimestamp {
			return invalidf("SetCell timestamp %d is negative", c.TimestampMicros)
		}
	case *btpb.Mutation_DeleteFromColumn_:
		c := x.DeleteFromColumn
		*m = base.Mutation{Kind: base.KindDeleteCells, Family: c.FamilyName, Qualifier: c.ColumnQualifier, Range: toTimeRange(c.TimeRange)}
	case *btpb.Mutation_DeleteFromFamily_:
		*m = base.Mutation{Kind: base.KindDeleteFamily, Family: x.DeleteFromFamily.FamilyName}
	case *btpb.Mutation_DeleteFromRow_:
		*m = base.Mutation{Kind: base.KindDeleteRow}
	case *btpb.Mutation_AddToCell_:
		c := x.AddToCell
		return toAggregate(m, base.KindAggAdd, c.FamilyName, c.ColumnQualifier, c.Timestamp, c.Input)
	case *btpb.Mutation_MergeToCell_:
		c := x.MergeToCell
		return toAggregate(m, base.KindAggMerge, c.FamilyName, c.ColumnQualifier, c.Timestamp, c.Input)
	default:
		return invalidf("mutation has no known kind")
	}
	return nil
}

// toTimeRange converts a delete's time range; an end of 0 means no end.
func toTimeRange(r *btpb.TimestampRange) base.TimeRange {
	tr := base.TimeRange{Start: r.GetStartTimestampMicros(), End: r.GetEndTimestampMicros()}
	if tr.End == 0 {
		tr.End = base.TombstoneTimestamp
	}
	return tr
}

func toAggregate(m *base.Mutation, kind base.Kind, family string, qual, ts, input *btpb.Value) error {
	q, err := valueBytes(qual, "column qualifier")
	if err != nil {
		return err
	}
	t, ok := ts.GetKind().(*btpb.Value_RawTimestampMicros)
	if !ok {
		return invalidf("aggregate timestamp must be a raw_timestamp_micros value")
	}
	in, err := valueBytes(input, "input")
	if err != nil {
		return err
	}
	*m = base.Mutation{Kind: kind, Family: family, Qualifier: q, Timestamp: t.RawTimestampMicros, Value: in}
	return nil
}

// valueBytes returns a Value's bytes: raw and bytes values as they are, an
// int64 as 8 bytes big-endian, a string as its bytes.
func valueBytes(v *btpb.Value, what string) ([]byte, error) {
	switch x := v.GetKind().(type) {
	case *btpb.Value_RawValue:
		return x.RawValue, nil
	case *btpb.Value_BytesValue:
		return x.BytesValue, nil
	case *btpb.Value_StringValue:
		return []byte(x.StringValue), nil
	case *btpb.Value_IntValue:
		return binary.BigEndian.AppendUint64(nil, uint64(x.IntValue)), nil
	}
	return nil, invalidf("aggregate %s has an unsupported value kind %T", what, v.GetKind())
}
