package api

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	btapb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/gcrule"
)

func TestToStatus(t *testing.T) {
	cases := []struct {
		err  error
		want codes.Code
	}{
		{nil, codes.OK},
		{base.InvalidArgf("x"), codes.InvalidArgument},
		{fmt.Errorf("ctx: %w", base.NotFoundf("t")), codes.NotFound},
		{base.AlreadyExistsf("t"), codes.AlreadyExists},
		{base.FailedPreconditionf("p"), codes.FailedPrecondition},
		{base.ResourceExhaustedf("big"), codes.ResourceExhausted},
		{fmt.Errorf("moving: %w", base.ErrUnavailable), codes.Unavailable},
		{base.ErrClosed, codes.Unavailable},
		{context.Canceled, codes.Canceled},
		{base.Corruptf("f", 1, "bad"), codes.DataLoss},
		{status.Error(codes.Unimplemented, "no"), codes.Unimplemented},
		{errors.New("surprise"), codes.Internal},
	}
	for _, c := range cases {
		got := toStatus(c.err)
		if status.Code(got) != c.want {
			t.Errorf("toStatus(%v) = %v, want %v", c.err, status.Code(got), c.want)
		}
		if c.err != nil && status.Convert(got).Message() == "" {
			t.Errorf("toStatus(%v) lost the message", c.err)
		}
	}
}

func TestToSpans(t *testing.T) {
	closed := func(s, e string) *btpb.RowRange {
		return &btpb.RowRange{StartKey: &btpb.RowRange_StartKeyClosed{StartKeyClosed: []byte(s)}, EndKey: &btpb.RowRange_EndKeyClosed{EndKeyClosed: []byte(e)}}
	}
	open := func(s, e string) *btpb.RowRange {
		return &btpb.RowRange{StartKey: &btpb.RowRange_StartKeyOpen{StartKeyOpen: []byte(s)}, EndKey: &btpb.RowRange_EndKeyOpen{EndKeyOpen: []byte(e)}}
	}
	cases := []struct {
		name string
		rs   *btpb.RowSet
		want string
	}{
		{"empty is all", &btpb.RowSet{}, `[""-∞)`},
		{"keys sorted and merged", &btpb.RowSet{RowKeys: [][]byte{[]byte("b"), []byte("a"), []byte("a")}}, `["a"-"a\x00") ["b"-"b\x00")`},
		{"closed", &btpb.RowSet{RowRanges: []*btpb.RowRange{closed("a", "c")}}, `["a"-"c\x00")`},
		{"open", &btpb.RowSet{RowRanges: []*btpb.RowRange{open("a", "c")}}, `["a\x00"-"c")`},
		{"overlap", &btpb.RowSet{RowRanges: []*btpb.RowRange{closed("a", "c"), closed("b", "d")}, RowKeys: [][]byte{[]byte("c")}}, `["a"-"d\x00")`},
		{"unbounded end", &btpb.RowSet{RowRanges: []*btpb.RowRange{{StartKey: &btpb.RowRange_StartKeyClosed{StartKeyClosed: []byte("m")}}}, RowKeys: [][]byte{[]byte("z")}}, `["m"-∞)`},
		{"empty range dropped", &btpb.RowSet{RowRanges: []*btpb.RowRange{open("a", "a\x00")}}, ``},
	}
	for _, c := range cases {
		spans, err := toSpans(c.rs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := ""
		for i, sp := range spans {
			if i > 0 {
				got += " "
			}
			end := "∞"
			if sp.end != nil {
				end = fmt.Sprintf("%q", sp.end)
			}
			got += fmt.Sprintf("[%q-%s)", sp.start, end)
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	if _, err := toSpans(&btpb.RowSet{RowRanges: []*btpb.RowRange{closed("b", "a")}}); !errors.Is(err, base.ErrInvalidArgument) {
		t.Errorf("reversed range: %v", err)
	}
	if _, err := toSpans(&btpb.RowSet{RowKeys: [][]byte{{}}}); !errors.Is(err, base.ErrInvalidArgument) {
		t.Errorf("empty key: %v", err)
	}
}

func TestGCRuleRoundTrip(t *testing.T) {
	rules := []gcrule.Rule{
		gcrule.None(),
		gcrule.MaxVersions(3),
		gcrule.MaxAge(time.Hour),
		gcrule.Union(gcrule.MaxAge(time.Minute), gcrule.Intersection(gcrule.MaxVersions(1), gcrule.MaxAge(time.Second))),
	}
	for _, r := range rules {
		back, err := toGCRule(gcRuleProto(r), 1)
		if err != nil || !back.Equal(r) {
			t.Errorf("%v: round trip gave %v, %v", r, back, err)
		}
	}
	bad := []*btapb.GcRule{
		{Rule: &btapb.GcRule_MaxNumVersions{MaxNumVersions: 0}},
		{Rule: &btapb.GcRule_MaxAge{MaxAge: durationpb.New(time.Microsecond)}},
	}
	for _, r := range bad {
		if _, err := toGCRule(r, 1); !errors.Is(err, base.ErrInvalidArgument) {
			t.Errorf("%v: %v, want invalid argument", r, err)
		}
	}
}

func TestPage(t *testing.T) {
	start, end, next, err := page(10, 4, "")
	if start != 0 || end != 4 || next != "4" || err != nil {
		t.Fatalf("first page: %d %d %q %v", start, end, next, err)
	}
	start, end, next, _ = page(10, 4, "8")
	if start != 8 || end != 10 || next != "" {
		t.Fatalf("last page: %d %d %q", start, end, next)
	}
	if _, _, _, err := page(10, 4, "x"); err == nil {
		t.Fatal("bad token accepted")
	}
}

func TestParseTable(t *testing.T) {
	for _, good := range []string{"projects/p/instances/i/tables/t", "projects/p-1/instances/i_2/tables/a.b-c"} {
		if _, _, err := parseTable(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
	for _, bad := range []string{"", "t", "projects/p/tables/t", "projects/p/instances/i/tables/", "projects/p/instances/i/tables/bad:id", "projects/p/instances/i/tables/" + string(make([]byte, 51))} {
		if _, _, err := parseTable(bad); !errors.Is(err, base.ErrInvalidArgument) {
			t.Errorf("%q: %v, want invalid argument", bad, err)
		}
	}
}
