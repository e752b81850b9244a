package api

import (
	"context"
	"regexp"
	"strings"
	"sync"

	btapb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/tabuladb/tabula/internal/base"
)

// The server is one local instance of one cluster under any name: every
// well-formed instance name exists, with the cluster localCluster and the
// app profile "default". Instances, clusters and app profiles created or
// changed through the API are kept in memory, for the clients' admin calls.
const (
	localCluster    = "local"
	defaultProfile  = "default"
	localLocation   = "local"
	localServeNodes = 1
)

var projectPattern = regexp.MustCompile(`^projects/[^/]+$`)

// instances holds the instance admin state.
type instances struct {
	mu sync.Mutex
	m  map[string]*instanceState
}

type instanceState struct {
	info     *btapb.Instance
	clusters map[string]*btapb.Cluster
	profiles map[string]*btapb.AppProfile
}

// get returns an instance's state, making the implicit one if needed.
// Callers hold mu.
func (in *instances) get(name string) *instanceState {
	if in.m == nil {
		in.m = map[string]*instanceState{}
	}
	st := in.m[name]
	if st == nil {
		st = &instanceState{
			info:     &btapb.Instance{Name: name, DisplayName: name[strings.LastIndex(name, "/")+1:], State: btapb.Instance_READY, Type: btapb.Instance_PRODUCTION},
			clusters: map[string]*btapb.Cluster{localCluster: newCluster(name, localCluster)},
			profiles: map[string]*btapb.AppProfile{defaultProfile: newProfile(name, defaultProfile)},
		}
		in.m[name] = st
	}
	return st
}

func newCluster(instance, id string) *btapb.Cluster {
	return &btapb.Cluster{
		Name: instance + "/clusters/" + id, Location: instance[:strings.Index(instance, "/instances/")] + "/locations/" + localLocation,
		State: btapb.Cluster_READY, ServeNodes: localServeNodes, DefaultStorageType: btapb.StorageType_SSD,
	}
}

func newProfile(instance, id string) *btapb.AppProfile {
	return &btapb.AppProfile{
		Name:          instance + "/appProfiles/" + id,
		RoutingPolicy: &btapb.AppProfile_MultiClusterRoutingUseAny_{MultiClusterRoutingUseAny: &btapb.AppProfile_MultiClusterRoutingUseAny{}},
	}
}

// instanceAdminServer serves google.bigtable.admin.v2.BigtableInstanceAdmin.
type instanceAdminServer struct {
	btapb.UnimplementedBigtableInstanceAdminServer
	s *Server
}

// with runs fn on an instance's state under the lock.
func (a *instanceAdminServer) with(name string, fn func(*instanceState) error) error {
	if err := checkInstance(name); err != nil {
		return toStatus(err)
	}
	a.s.inst.mu.Lock()
	defer a.s.inst.mu.Unlock()
	return toStatus(fn(a.s.inst.get(name)))
}

// splitChild splits projects/P/instances/I/KIND/ID into the instance and ID.
func splitChild(name, kind string) (instance, id string, err error) {
	i := strings.LastIndex(name, "/"+kind+"/")
	if i < 0 || checkInstance(name[:i]) != nil || checkTableID(name[i+len(kind)+2:]) != nil {
		return "", "", invalidf("bad %s name %q", kind, name)
	}
	return name[:i], name[i+len(kind)+2:], nil
}

func (a *instanceAdminServer) CreateInstance(ctx context.Context, req *btapb.CreateInstanceRequest) (*longrunningpb.Operation, error) {
	if !projectPattern.MatchString(req.Parent) || checkTableID(req.InstanceId) != nil {
		return nil, toStatus(invalidf("bad instance %q in %q", req.InstanceId, req.Parent))
	}
	name := req.Parent + "/instances/" + req.InstanceId
	var out *btapb.Instance
	err := a.with(name, func(st *instanceState) error {
		st.info = proto.Clone(req.Instance).(*btapb.Instance)
		st.info.Name, st.info.State, st.info.CreateTime = name, btapb.Instance_READY, timestamppb.New(a.s.clock())
		for id, c := range req.Clusters {
			st.clusters[id] = readyCluster(name, id, c)
		}
		out = proto.Clone(st.info).(*btapb.Instance)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return doneOperation(name, &btapb.CreateInstanceMetadata{OriginalRequest: req}, out)
}

func readyCluster(instance, id string, c *btapb.Cluster) *btapb.Cluster {
	out := newCluster(instance, id)
	if c.GetServeNodes() > 0 {
		out.ServeNodes = c.ServeNodes
	}
	if c.GetLocation() != "" {
		out.Location = c.Location
	}
	return out
}

func (a *instanceAdminServer) GetInstance(ctx context.Context, req *btapb.GetInstanceRequest) (*btapb.Instance, error) {
	var out *btapb.Instance
	err := a.with(req.Name, func(st *instanceState) error { out = proto.Clone(st.info).(*btapb.Instance); return nil })
	return out, err
}

func (a *instanceAdminServer) ListInstances(ctx context.Context, req *btapb.ListInstancesRequest) (*btapb.ListInstancesResponse, error) {
	if !projectPattern.MatchString(req.Parent) {
		return nil, toStatus(invalidf("bad project name %q", req.Parent))
	}
	names := map[string]bool{}
	for _, t := range a.s.host.Tables() {
		if inst, _, err := parseTable(t); err == nil && strings.HasPrefix(inst, req.Parent+"/") {
			names[inst] = true
		}
	}
	a.s.inst.mu.Lock()
	defer a.s.inst.mu.Unlock()
	for n := range a.s.inst.m {
		if strings.HasPrefix(n, req.Parent+"/") {
			names[n] = true
		}
	}
	resp := &btapb.ListInstancesResponse{}
	for _, n := range sortedKeys(names) {
		resp.Instances = append(resp.Instances, proto.Clone(a.s.inst.get(n).info).(*btapb.Instance))
	}
	return resp, nil
}

func (a *instanceAdminServer) UpdateInstance(ctx context.Context, req *btapb.Instance) (*btapb.Instance, error) {
	var out *btapb.Instance
	err := a.with(req.Name, func(st *instanceState) error {
		if req.DisplayName != "" {
			st.info.DisplayName = req.DisplayName
		}
		st.info.Labels = req.Labels
		out = proto.Clone(st.info).(*btapb.Instance)
		return nil
	})
	return out, err
}

func (a *instanceAdminServer) PartialUpdateInstance(ctx context.Context, req *btapb.PartialUpdateInstanceRequest) (*longrunningpb.Operation, error) {
	out, err := a.UpdateInstance(ctx, req.GetInstance())
	if err != nil {
		return nil, err
	}
	return doneOperation(out.Name, &btapb.UpdateInstanceMetadata{OriginalRequest: req}, out)
}

// DeleteInstance deletes the instance's tables; it fails, deleting none,
// if one of them is protected.
func (a *instanceAdminServer) DeleteInstance(ctx context.Context, req *btapb.DeleteInstanceRequest) (*emptypb.Empty, error) {
	if err := checkInstance(req.Name); err != nil {
		return nil, toStatus(err)
	}
	a.s.adminMu.Lock()
	defer a.s.adminMu.Unlock()
	tables := a.s.tablesOf(req.Name)
	for _, t := range tables {
		if s, err := a.s.host.TableSchema(t); err == nil && s.DeletionProtection {
			return nil, toStatus(base.FailedPreconditionf("table %q is protected from deletion", t))
		}
	}
	for _, t := range tables {
		if err := a.s.host.DeleteTable(t); err != nil {
			return nil, toStatus(err)
		}
	}
	a.s.inst.mu.Lock()
	delete(a.s.inst.m, req.Name)
	a.s.inst.mu.Unlock()
	return &emptypb.Empty{}, nil
}
