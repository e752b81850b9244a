package api

import (
	"time"

	btapb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/tabuladb/tabula/internal/aggregate"
	"github.com/tabuladb/tabula/internal/gcrule"
	"github.com/tabuladb/tabula/internal/tablet"
)

// maxGCRuleBytes is Cloud Bigtable's limit on a serialized GC rule.
const maxGCRuleBytes = 500

// toFamily converts a column family's settings.
func toFamily(name string, cf *btapb.ColumnFamily) (tablet.Family, error) {
	if !tablet.ValidFamilyName(name) {
		return tablet.Family{}, invalidf("bad column family name %q: want [_a-zA-Z0-9][-_.a-zA-Z0-9]*, at most 64 bytes", name)
	}
	if proto.Size(cf.GetGcRule()) > maxGCRuleBytes {
		return tablet.Family{}, invalidf("family %q: GC rule is over %d bytes", name, maxGCRuleBytes)
	}
	rule, err := toGCRule(cf.GetGcRule(), 1)
	if err != nil {
		return tablet.Family{}, err
	}
	agg, err := toAggregateType(cf.GetValueType())
	if err != nil {
		return tablet.Family{}, err
	}
	return tablet.Family{GC: rule, Aggregate: agg}, nil
}

// toGCRule converts a GC rule; a nil rule keeps everything.
func toGCRule(r *btapb.GcRule, depth int) (gcrule.Rule, error) {
	if depth > gcrule.MaxDepth {
		return gcrule.Rule{}, invalidf("GC rules nest deeper than %d", gcrule.MaxDepth)
	}
	var out gcrule.Rule
	switch x := r.GetRule().(type) {
	case nil:
		return gcrule.None(), nil
	case *btapb.GcRule_MaxNumVersions:
		out = gcrule.MaxVersions(int(x.MaxNumVersions))
	case *btapb.GcRule_MaxAge:
		out = gcrule.MaxAge(x.MaxAge.AsDuration().Truncate(time.Millisecond))
	case *btapb.GcRule_Union_:
		rules, err := toGCRules(x.Union.GetRules(), depth)
		if err != nil {
			return out, err
		}
		out = gcrule.Union(rules...)
	case *btapb.GcRule_Intersection_:
		rules, err := toGCRules(x.Intersection.GetRules(), depth)
		if err != nil {
			return out, err
		}
		out = gcrule.Intersection(rules...)
	}
	return out, out.Validate()
}

func toGCRules(in []*btapb.GcRule, depth int) ([]gcrule.Rule, error) {
	out := make([]gcrule.Rule, len(in))
	for i, r := range in {
		var err error
		if out[i], err = toGCRule(r, depth+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// gcRuleProto converts a GC rule back; the rule that keeps all is nil.
func gcRuleProto(r gcrule.Rule) *btapb.GcRule {
	switch r.Kind() {
	case gcrule.KindMaxVersions:
		return &btapb.GcRule{Rule: &btapb.GcRule_MaxNumVersions{MaxNumVersions: int32(r.MaxVersionsValue())}}
	case gcrule.KindMaxAge:
		return &btapb.GcRule{Rule: &btapb.GcRule_MaxAge{MaxAge: durationpb.New(r.MaxAgeValue())}}
	case gcrule.KindUnion:
		return &btapb.GcRule{Rule: &btapb.GcRule_Union_{Union: &btapb.GcRule_Union{Rules: gcRuleProtos(r.Children())}}}
	case gcrule.KindIntersection:
		return &btapb.GcRule{Rule: &btapb.GcRule_Intersection_{Intersection: &btapb.GcRule_Intersection{Rules: gcRuleProtos(r.Children())}}}
	}
	return nil
}

func gcRuleProtos(rs []gcrule.Rule) []*btapb.GcRule {
	out := make([]*btapb.GcRule, len(rs))
	for i, r := range rs {
		out[i] = gcRuleProto(r)
	}
	return out
}

// toAggregateType converts a family's value type: nil or a plain type is a
// family of ordinary cells; an aggregate type names its aggregator.
func toAggregateType(t *btapb.Type) (aggregate.Type, error) {
	if t == nil {
		return aggregate.None, nil
	}
	a, ok := t.Kind.(*btapb.Type_AggregateType)
	if !ok {
		return aggregate.None, invalidf("column family value type must be an aggregate type, got %T", t.Kind)
	}
	switch a.AggregateType.Aggregator.(type) {
	case *btapb.Type_Aggregate_Sum_:
		return aggregate.Sum, checkIntInput(a.AggregateType)
	case *btapb.Type_Aggregate_Min_:
		return aggregate.Min, checkIntInput(a.AggregateType)
	case *btapb.Type_Aggregate_Max_:
		return aggregate.Max, checkIntInput(a.AggregateType)
	case *btapb.Type_Aggregate_HllppUniqueCount:
		return aggregate.HLL, nil
	}
	return aggregate.None, invalidf("aggregate type has no known aggregator")
}

func checkIntInput(a *btapb.Type_Aggregate) error {
	if _, ok := a.GetInputType().GetKind().(*btapb.Type_Int64Type); !ok && a.GetInputType() != nil {
		return invalidf("sum, min and max aggregates take int64 input, got %T", a.GetInputType().GetKind())
	}
	return nil
}

// valueTypeProto describes an aggregate family's type as Cloud Bigtable does.
func valueTypeProto(t aggregate.Type) *btapb.Type {
	agg := &btapb.Type_Aggregate{InputType: int64Type(), StateType: int64Type()}
	switch t {
	case aggregate.Sum:
		agg.Aggregator = &btapb.Type_Aggregate_Sum_{Sum: &btapb.Type_Aggregate_Sum{}}
	case aggregate.Min:
		agg.Aggregator = &btapb.Type_Aggregate_Min_{Min: &btapb.Type_Aggregate_Min{}}
	case aggregate.Max:
		agg.Aggregator = &btapb.Type_Aggregate_Max_{Max: &btapb.Type_Aggregate_Max{}}
	case aggregate.HLL:
		agg.Aggregator = &btapb.Type_Aggregate_HllppUniqueCount{HllppUniqueCount: &btapb.Type_Aggregate_HyperLogLogPlusPlusUniqueCount{}}
		agg.InputType, agg.StateType = bytesType(), bytesType()
	default:
		return nil
	}
	return &btapb.Type{Kind: &btapb.Type_AggregateType{AggregateType: agg}}
}

func int64Type() *btapb.Type {
	enc := &btapb.Type_Int64_Encoding{Encoding: &btapb.Type_Int64_Encoding_BigEndianBytes_{BigEndianBytes: &btapb.Type_Int64_Encoding_BigEndianBytes{}}}
	return &btapb.Type{Kind: &btapb.Type_Int64Type{Int64Type: &btapb.Type_Int64{Encoding: enc}}}
}

func bytesType() *btapb.Type {
	return &btapb.Type{Kind: &btapb.Type_BytesType{BytesType: &btapb.Type_Bytes{}}}
}

// familyProto converts a family's settings back.
func familyProto(f tablet.Family) *btapb.ColumnFamily {
	return &btapb.ColumnFamily{GcRule: gcRuleProto(f.GC), ValueType: valueTypeProto(f.Aggregate)}
}
