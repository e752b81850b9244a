package api

import (
	"context"
	"slices"
	"strings"

	"github.com/tabuladb/tabula/internal/adminpb"
	"github.com/tabuladb/tabula/internal/compress"
	"github.com/tabuladb/tabula/internal/tablet"
)

// extServer serves tabula.admin.v1.TabulaAdmin: the paper's locality-group
// settings and manual tablet operations.
type extServer struct {
	adminpb.UnimplementedTabulaAdminServer
	s *Server
}

// fullName accepts a full table name or, for the shell's convenience, a
// bare id, which names a table of any instance if exactly one has it.
func (e *extServer) fullName(name string) (string, error) {
	if strings.Contains(name, "/") {
		_, err := e.s.schema(name)
		return name, err
	}
	if err := checkTableID(name); err != nil {
		return "", err
	}
	var found []string
	for _, t := range e.s.host.Tables() {
		if strings.HasSuffix(t, "/tables/"+name) {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		return "", invalidf("table id %q is in %d instances; give the full name", name, len(found))
	}
	return found[0], nil
}

var codecNames = map[adminpb.Compression]compress.ID{
	adminpb.Compression_NONE: compress.None, adminpb.Compression_SNAPPY: compress.Snappy,
	adminpb.Compression_ZSTD: compress.Zstd, adminpb.Compression_TWO_PASS: compress.TwoPass,
}

func (e *extServer) GetLocalityGroups(ctx context.Context, req *adminpb.GetLocalityGroupsRequest) (*adminpb.LocalityGroups, error) {
	name, err := e.fullName(req.Table)
	if err != nil {
		return nil, toStatus(err)
	}
	s, err := e.s.host.TableSchema(name)
	if err != nil {
		return nil, toStatus(err)
	}
	return groupsProto(name, s), nil
}

// groupsProto lists a schema's groups: those with settings and those a
// family names, each with its families.
func groupsProto(name string, s *tablet.Schema) *adminpb.LocalityGroups {
	members := map[string][]string{}
	for g := range s.Groups {
		members[g] = nil
	}
	for f := range s.Families {
		g := s.GroupOf(f)
		members[g] = append(members[g], f)
	}
	out := &adminpb.LocalityGroups{Table: name}
	for _, g := range sortedKeys(members) {
		o := s.GroupOptions(g)
		slices.Sort(members[g])
		out.Groups = append(out.Groups, &adminpb.LocalityGroup{
			Name: g, Families: members[g], InMemory: o.InMemory, Compression: compressionProto(o.Compression),
			BlockSize: int32(o.BlockSize), BloomFilter: !o.NoBloom,
		})
	}
	return out
}

func compressionProto(id compress.ID) adminpb.Compression {
	for c, v := range codecNames {
		if v == id {
			return c
		}
	}
	return adminpb.Compression_COMPRESSION_UNSPECIFIED
}

func (e *extServer) SetLocalityGroup(ctx context.Context, req *adminpb.SetLocalityGroupRequest) (*adminpb.LocalityGroups, error) {
	if !tablet.ValidFamilyName(req.Group) {
		return nil, toStatus(invalidf("bad locality group name %q", req.Group))
	}
	return e.update(req.Table, func(s *tablet.Schema) error {
		o, err := setGroupOptions(s.GroupOptions(req.Group), req)
		if s.Groups == nil {
			s.Groups = map[string]tablet.GroupOptions{}
		}
		s.Groups[req.Group] = o
		return err
	})
}

// setGroupOptions changes the options a request's mask names.
func setGroupOptions(o tablet.GroupOptions, req *adminpb.SetLocalityGroupRequest) (tablet.GroupOptions, error) {
	mask := req.UpdateMask
	if len(mask) == 0 {
		mask = []string{"in_memory", "compression", "block_size", "bloom_filter"}
	}
	for _, f := range mask {
		switch f {
		case "in_memory":
			o.InMemory = req.InMemory
		case "compression":
			id, ok := codecNames[req.Compression]
			if !ok && req.Compression != adminpb.Compression_COMPRESSION_UNSPECIFIED {
				return o, invalidf("unknown compression %v", req.Compression)
			}
			o.Compression = id
		case "block_size":
			if req.BlockSize < 0 {
				return o, invalidf("negative block size %d", req.BlockSize)
			}
			o.BlockSize = int(req.BlockSize)
		case "bloom_filter":
			o.NoBloom = !req.BloomFilter
		default:
			return o, invalidf("unknown locality group field %q", f)
		}
	}
	return o, nil
}

func (e *extServer) SetFamilyGroup(ctx context.Context, req *adminpb.SetFamilyGroupRequest) (*adminpb.LocalityGroups, error) {
	if !tablet.ValidFamilyName(req.Group) {
		return nil, toStatus(invalidf("bad locality group name %q", req.Group))
	}
	if len(req.Families) == 0 {
		return nil, toStatus(invalidf("no families"))
	}
	return e.update(req.Table, func(s *tablet.Schema) error {
		for _, name := range req.Families {
			f, ok := s.Families[name]
			if !ok {
				return notFoundFamily(name)
			}
			f.Group = req.Group
			s.Families[name] = f
		}
		return nil
	})
}

// update changes a table's schema under the admin lock.
func (e *extServer) update(table string, fn func(*tablet.Schema) error) (*adminpb.LocalityGroups, error) {
	e.s.adminMu.Lock()
	defer e.s.adminMu.Unlock()
	name, err := e.fullName(table)
	if err != nil {
		return nil, toStatus(err)
	}
	s, err := e.s.host.TableSchema(name)
	if err != nil {
		return nil, toStatus(err)
	}
	s = s.Clone()
	if err := fn(s); err != nil {
		return nil, toStatus(err)
	}
	if err := e.s.host.SetSchema(name, s); err != nil {
		return nil, toStatus(err)
	}
	return groupsProto(name, s), nil
}

func (e *extServer) ListTablets(ctx context.Context, req *adminpb.ListTabletsRequest) (*adminpb.ListTabletsResponse, error) {
	ts, err := e.tablets(req.Table)
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &adminpb.ListTabletsResponse{}
	for _, t := range ts {
		start, end := t.Range()
		resp.Tablets = append(resp.Tablets, &adminpb.Tablet{Id: t.ID(), StartKey: start, EndKey: end, ApproximateBytes: t.ApproximateSize()})
	}
	return resp, nil
}

func (e *extServer) tablets(table string) ([]*tablet.Tablet, error) {
	name, err := e.fullName(table)
	if err != nil {
		return nil, err
	}
	return e.s.host.Tablets(name)
}

func (e *extServer) Flush(ctx context.Context, req *adminpb.TableOpRequest) (*adminpb.TableOpResponse, error) {
	return e.each(req.Table, (*tablet.Tablet).Flush)
}

func (e *extServer) Compact(ctx context.Context, req *adminpb.TableOpRequest) (*adminpb.TableOpResponse, error) {
	return e.each(req.Table, (*tablet.Tablet).Compact)
}

// each runs op on every tablet of a table.
func (e *extServer) each(table string, op func(*tablet.Tablet) error) (*adminpb.TableOpResponse, error) {
	ts, err := e.tablets(table)
	if err != nil {
		return nil, toStatus(err)
	}
	for _, t := range ts {
		if err := op(t); err != nil {
			return nil, toStatus(err)
		}
	}
	return &adminpb.TableOpResponse{Tablets: int32(len(ts))}, nil
}

func (e *extServer) Split(ctx context.Context, req *adminpb.SplitRequest) (*adminpb.TableOpResponse, error) {
	name, err := e.fullName(req.Table)
	if err != nil {
		return nil, toStatus(err)
	}
	if err := tablet.ValidateRowKey(req.RowKey); err != nil {
		return nil, toStatus(err)
	}
	t, err := e.s.host.TabletFor(name, req.RowKey)
	if err != nil {
		return nil, toStatus(err)
	}
	if start, _ := t.Range(); string(start) == string(req.RowKey) {
		return nil, toStatus(invalidf("row %q already starts a tablet", req.RowKey))
	}
	if err := e.s.host.Split(t.ID(), req.RowKey); err != nil {
		return nil, toStatus(err)
	}
	return &adminpb.TableOpResponse{Tablets: 2}, nil
}
