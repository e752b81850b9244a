package api

import (
	"testing"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"google.golang.org/protobuf/proto"

	"github.com/tabuladb/tabula/internal/base"
)

// FuzzReadRowsRequest decodes arbitrary ReadRows requests and runs their
// row set and filter on a fixed row: conversion and evaluation must fail
// cleanly or succeed, never panic.
func FuzzReadRowsRequest(f *testing.F) {
	seeds := []*btpb.ReadRowsRequest{
		{Rows: &btpb.RowSet{RowKeys: [][]byte{[]byte("a")}}},
		{Filter: &btpb.RowFilter{Filter: &btpb.RowFilter_Chain_{Chain: &btpb.RowFilter_Chain{Filters: []*btpb.RowFilter{
			{Filter: &btpb.RowFilter_ValueRegexFilter{ValueRegexFilter: []byte("v.*")}},
			{Filter: &btpb.RowFilter_CellsPerColumnLimitFilter{CellsPerColumnLimitFilter: 1}},
		}}}}},
		{Filter: &btpb.RowFilter{Filter: &btpb.RowFilter_Condition_{Condition: &btpb.RowFilter_Condition{
			PredicateFilter: &btpb.RowFilter{Filter: &btpb.RowFilter_FamilyNameRegexFilter{FamilyNameRegexFilter: "c."}},
			TrueFilter:      &btpb.RowFilter{Filter: &btpb.RowFilter_ApplyLabelTransformer{ApplyLabelTransformer: "x"}},
		}}}},
	}
	for _, s := range seeds {
		b, err := proto.Marshal(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	row := base.Row{Key: []byte("a"), Cells: []base.Cell{
		{Family: "cf", Qualifier: []byte("q"), Timestamp: 2000, Value: []byte("v1")},
		{Family: "cf", Qualifier: []byte("q"), Timestamp: 1000, Value: []byte("v0")},
	}}
	f.Fuzz(func(t *testing.T, b []byte) {
		var req btpb.ReadRowsRequest
		if proto.Unmarshal(b, &req) != nil {
			return
		}
		_, _ = toSpans(req.Rows)
		prog, err := compileFilter(req.Filter)
		if err != nil {
			return
		}
		prog.Apply(row, func() float64 { return 0.5 })
	})
}

// FuzzMutations decodes arbitrary mutation lists and converts them.
func FuzzMutations(f *testing.F) {
	m := &btpb.MutateRowRequest{Mutations: []*btpb.Mutation{
		{Mutation: &btpb.Mutation_SetCell_{SetCell: &btpb.Mutation_SetCell{FamilyName: "cf", ColumnQualifier: []byte("q"), TimestampMicros: 1000, Value: []byte("v")}}},
		{Mutation: &btpb.Mutation_AddToCell_{AddToCell: &btpb.Mutation_AddToCell{FamilyName: "s", ColumnQualifier: &btpb.Value{Kind: &btpb.Value_RawValue{RawValue: []byte("q")}},
			Timestamp: &btpb.Value{Kind: &btpb.Value_RawTimestampMicros{RawTimestampMicros: 0}}, Input: &btpb.Value{Kind: &btpb.Value_IntValue{IntValue: 3}}}}},
	}}
	b, err := proto.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var req btpb.MutateRowRequest
		if proto.Unmarshal(b, &req) != nil {
			return
		}
		_, _ = toMutations(req.Mutations)
	})
}
