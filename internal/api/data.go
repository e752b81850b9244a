package api

import (
	"context"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	gstatus "google.golang.org/grpc/status"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/tablet"
)

// dataServer serves google.bigtable.v2.Bigtable.
type dataServer struct {
	btpb.UnimplementedBigtableServer
	s *Server
}

// table checks a data request's target and returns the host's table name.
// Authorized and materialized views are not served.
func (d *dataServer) table(name, view string) (string, error) {
	if view != "" {
		return "", gstatus.Errorf(codes.Unimplemented, "authorized and materialized views are not supported (%s)", view)
	}
	if _, _, err := parseTable(name); err != nil {
		return "", err
	}
	if _, err := d.s.host.TableSchema(name); err != nil {
		return "", err
	}
	return name, nil
}

func (d *dataServer) MutateRow(ctx context.Context, req *btpb.MutateRowRequest) (*btpb.MutateRowResponse, error) {
	name, err := d.table(req.TableName, req.AuthorizedViewName)
	if err != nil {
		return nil, toStatus(err)
	}
	if err := d.apply(name, req.RowKey, req.Mutations); err != nil {
		return nil, toStatus(err)
	}
	return &btpb.MutateRowResponse{}, nil
}

func (d *dataServer) apply(name string, row []byte, in []*btpb.Mutation) error {
	muts, err := toMutations(in)
	if err != nil {
		return err
	}
	return d.s.host.Apply(name, row, muts)
}

func (d *dataServer) MutateRows(req *btpb.MutateRowsRequest, stream btpb.Bigtable_MutateRowsServer) error {
	name, err := d.table(req.TableName, req.AuthorizedViewName)
	if err != nil {
		return toStatus(err)
	}
	if len(req.Entries) == 0 {
		return toStatus(invalidf("no entries"))
	}
	if err := checkMutationCount(req.Entries); err != nil {
		return toStatus(err)
	}
	resp := &btpb.MutateRowsResponse{Entries: make([]*btpb.MutateRowsResponse_Entry, len(req.Entries))}
	d.applyAll(name, req.Entries, resp.Entries)
	return stream.Send(resp)
}

// checkMutationCount enforces the per-request limit over all entries.
func checkMutationCount(entries []*btpb.MutateRowsRequest_Entry) error {
	n := 0
	for _, e := range entries {
		n += len(e.Mutations)
	}
	if n > tablet.MaxMutations {
		return invalidf("%d mutations is over the limit of %d per request", n, tablet.MaxMutations)
	}
	return nil
}

// applyAll applies the entries as one batch, each entry atomically on its
// own, and records a status per entry.
func (d *dataServer) applyAll(name string, entries []*btpb.MutateRowsRequest_Entry, out []*btpb.MutateRowsResponse_Entry) {
	errs := make([]error, len(entries))
	rows := make([]tablet.RowMutation, 0, len(entries))
	pos := make([]int, 0, len(entries))
	for i, e := range entries {
		muts, err := toMutations(e.Mutations)
		if err != nil {
			errs[i] = err
			continue
		}
		rows = append(rows, tablet.RowMutation{Row: e.RowKey, Mutations: muts})
		pos = append(pos, i)
	}
	for k, err := range d.s.host.ApplyBatch(name, rows) {
		errs[pos[k]] = err
	}
	for i, err := range errs {
		out[i] = &btpb.MutateRowsResponse_Entry{Index: int64(i), Status: entryStatus(err)}
	}
}

// entryStatus is the status proto of one MutateRows entry.
func entryStatus(err error) *status.Status {
	if err == nil {
		return &status.Status{}
	}
	return gstatus.Convert(toStatus(err)).Proto()
}

func (d *dataServer) CheckAndMutateRow(ctx context.Context, req *btpb.CheckAndMutateRowRequest) (*btpb.CheckAndMutateRowResponse, error) {
	name, err := d.table(req.TableName, req.AuthorizedViewName)
	if err != nil {
		return nil, toStatus(err)
	}
	matched, err := d.checkAndMutate(name, req)
	if err != nil {
		return nil, toStatus(err)
	}
	return &btpb.CheckAndMutateRowResponse{PredicateMatched: matched}, nil
}

func (d *dataServer) checkAndMutate(name string, req *btpb.CheckAndMutateRowRequest) (bool, error) {
	prog, err := compileFilter(req.PredicateFilter)
	if err != nil {
		return false, err
	}
	onTrue, err := optionalMutations(req.TrueMutations)
	if err != nil {
		return false, err
	}
	onFalse, err := optionalMutations(req.FalseMutations)
	if err != nil {
		return false, err
	}
	if len(onTrue)+len(onFalse) > tablet.MaxMutations {
		return false, invalidf("%d mutations is over the limit of %d", len(onTrue)+len(onFalse), tablet.MaxMutations)
	}
	pred := func(r base.Row) (bool, error) {
		if req.PredicateFilter == nil {
			return len(r.Cells) > 0, nil
		}
		return prog.Matches(r, d.s.random), nil
	}
	return d.s.host.CheckAndMutate(name, req.RowKey, pred, onTrue, onFalse)
}

// optionalMutations converts a branch of a conditional mutation, which may
// be empty.
func optionalMutations(in []*btpb.Mutation) ([]base.Mutation, error) {
	if len(in) == 0 {
		return nil, nil
	}
	return toMutations(in)
}

func (d *dataServer) ReadModifyWriteRow(ctx context.Context, req *btpb.ReadModifyWriteRowRequest) (*btpb.ReadModifyWriteRowResponse, error) {
	name, err := d.table(req.TableName, req.AuthorizedViewName)
	if err != nil {
		return nil, toStatus(err)
	}
	rules, err := toModifyRules(req.Rules)
	if err != nil {
		return nil, toStatus(err)
	}
	row, err := d.s.host.ReadModifyWrite(name, req.RowKey, rules)
	if err != nil {
		return nil, toStatus(err)
	}
	return &btpb.ReadModifyWriteRowResponse{Row: rowProto(row)}, nil
}

func toModifyRules(in []*btpb.ReadModifyWriteRule) ([]tablet.ModifyRule, error) {
	if len(in) == 0 {
		return nil, invalidf("no read-modify-write rules")
	}
	if len(in) > tablet.MaxMutations {
		return nil, invalidf("%d rules is over the limit of %d", len(in), tablet.MaxMutations)
	}
	out := make([]tablet.ModifyRule, len(in))
	for i, r := range in {
		out[i] = tablet.ModifyRule{Family: r.FamilyName, Qualifier: r.ColumnQualifier}
		switch x := r.Rule.(type) {
		case *btpb.ReadModifyWriteRule_AppendValue:
			out[i].Append = x.AppendValue
		case *btpb.ReadModifyWriteRule_IncrementAmount:
			out[i].IsIncrement, out[i].Increment = true, x.IncrementAmount
		default:
			return nil, invalidf("read-modify-write rule %d has neither append_value nor increment_amount", i)
		}
	}
	return out, nil
}

// rowProto converts a row to the proto of a ReadModifyWriteRow answer.
func rowProto(r base.Row) *btpb.Row {
	out := &btpb.Row{Key: r.Key}
	var fam *btpb.Family
	var col *btpb.Column
	for _, c := range r.Cells {
		if fam == nil || fam.Name != c.Family {
			fam = &btpb.Family{Name: c.Family}
			out.Families = append(out.Families, fam)
			col = nil
		}
		if col == nil || string(col.Qualifier) != string(c.Qualifier) {
			col = &btpb.Column{Qualifier: c.Qualifier}
			fam.Columns = append(fam.Columns, col)
		}
		col.Cells = append(col.Cells, &btpb.Cell{TimestampMicros: c.Timestamp, Value: c.Value})
	}
	return out
}

func (d *dataServer) PingAndWarm(ctx context.Context, req *btpb.PingAndWarmRequest) (*btpb.PingAndWarmResponse, error) {
	if err := checkInstance(req.Name); err != nil {
		return nil, toStatus(err)
	}
	return &btpb.PingAndWarmResponse{}, nil
}
