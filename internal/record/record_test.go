package record

import (
	"reflect"
	"testing"

	"github.com/tabuladb/tabula/internal/base"
)

func sample() *RowMutation {
	return &RowMutation{Tablet: 7, Seq: 1 << 40, Row: []byte("row\x00key"), Mutations: []base.Mutation{
		{Kind: base.KindPut, Family: "cf", Qualifier: []byte("q"), Timestamp: 1000, Value: []byte("v")},
		{Kind: base.KindDeleteCells, Family: "cf", Qualifier: []byte("q"), Range: base.TimeRange{Start: 0, End: 5000}},
		{Kind: base.KindDeleteFamily, Family: "cf"},
		{Kind: base.KindDeleteRow},
		{Kind: base.KindAggAdd, Family: "agg", Qualifier: []byte{}, Timestamp: 0, Value: []byte{0, 0, 0, 0, 0, 0, 0, 1}},
	}}
}

func TestRoundTrip(t *testing.T) {
	m := sample()
	got, err := Decode(Append(nil, m))
	if err != nil {
		t.Fatal(err)
	}
	for i := range got.Mutations {
		if len(got.Mutations[i].Qualifier) == 0 {
			got.Mutations[i].Qualifier = m.Mutations[i].Qualifier
		}
		if len(got.Mutations[i].Value) == 0 {
			got.Mutations[i].Value = m.Mutations[i].Value
		}
	}
	if !reflect.DeepEqual(&got, m) {
		t.Fatalf("got %+v\nwant %+v", got, *m)
	}
}

func TestTruncatedRecordsFail(t *testing.T) {
	b := Append(nil, sample())
	for i := range len(b) {
		if _, err := Decode(b[:i]); !IsMalformed(err) {
			t.Fatalf("prefix of %d bytes: err %v", i, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Append(nil, sample()))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err == nil {
			if _, err := Decode(Append(nil, &m)); err != nil {
				t.Fatalf("re-encoding of a decoded record fails: %v", err)
			}
		}
	})
}
