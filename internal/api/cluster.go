package api

import (
	"context"
	"sort"

	btapb "cloud.google.com/go/bigtable/admin/apiv2/adminpb"
	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/tabuladb/tabula/internal/base"
)

func (a *instanceAdminServer) CreateCluster(ctx context.Context, req *btapb.CreateClusterRequest) (*longrunningpb.Operation, error) {
	if checkTableID(req.ClusterId) != nil {
		return nil, toStatus(invalidf("bad cluster id %q", req.ClusterId))
	}
	var out *btapb.Cluster
	err := a.with(req.Parent, func(st *instanceState) error {
		if st.clusters[req.ClusterId] != nil {
			return base.AlreadyExistsf("cluster %q", req.ClusterId)
		}
		out = readyCluster(req.Parent, req.ClusterId, req.Cluster)
		st.clusters[req.ClusterId] = out
		return nil
	})
	if err != nil {
		return nil, err
	}
	return doneOperation(out.Name, &btapb.CreateClusterMetadata{OriginalRequest: req}, out)
}

// cluster runs fn on a named cluster under the lock.
func (a *instanceAdminServer) cluster(name string, fn func(st *instanceState, id string) error) error {
	inst, id, err := splitChild(name, "clusters")
	if err != nil {
		return toStatus(err)
	}
	return a.with(inst, func(st *instanceState) error {
		if st.clusters[id] == nil {
			return base.NotFoundf("cluster %q", name)
		}
		return fn(st, id)
	})
}

func (a *instanceAdminServer) GetCluster(ctx context.Context, req *btapb.GetClusterRequest) (*btapb.Cluster, error) {
	var out *btapb.Cluster
	err := a.cluster(req.Name, func(st *instanceState, id string) error {
		out = proto.Clone(st.clusters[id]).(*btapb.Cluster)
		return nil
	})
	return out, err
}

func (a *instanceAdminServer) ListClusters(ctx context.Context, req *btapb.ListClustersRequest) (*btapb.ListClustersResponse, error) {
	resp := &btapb.ListClustersResponse{}
	err := a.with(req.Parent, func(st *instanceState) error {
		for _, id := range sortedKeys(st.clusters) {
			resp.Clusters = append(resp.Clusters, proto.Clone(st.clusters[id]).(*btapb.Cluster))
		}
		return nil
	})
	return resp, err
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (a *instanceAdminServer) UpdateCluster(ctx context.Context, req *btapb.Cluster) (*longrunningpb.Operation, error) {
	var out *btapb.Cluster
	err := a.cluster(req.Name, func(st *instanceState, id string) error {
		c := st.clusters[id]
		if req.ServeNodes > 0 {
			c.ServeNodes = req.ServeNodes
		}
		out = proto.Clone(c).(*btapb.Cluster)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return doneOperation(out.Name, &btapb.UpdateClusterMetadata{OriginalRequest: req}, out)
}

func (a *instanceAdminServer) PartialUpdateCluster(ctx context.Context, req *btapb.PartialUpdateClusterRequest) (*longrunningpb.Operation, error) {
	return a.UpdateCluster(ctx, req.GetCluster())
}

func (a *instanceAdminServer) DeleteCluster(ctx context.Context, req *btapb.DeleteClusterRequest) (*emptypb.Empty, error) {
	err := a.cluster(req.Name, func(st *instanceState, id string) error {
		if len(st.clusters) == 1 {
			return base.FailedPreconditionf("cluster %q is the instance's last", req.Name)
		}
		delete(st.clusters, id)
		return nil
	})
	return &emptypb.Empty{}, err
}

func (a *instanceAdminServer) CreateAppProfile(ctx context.Context, req *btapb.CreateAppProfileRequest) (*btapb.AppProfile, error) {
	if checkTableID(req.AppProfileId) != nil {
		return nil, toStatus(invalidf("bad app profile id %q", req.AppProfileId))
	}
	var out *btapb.AppProfile
	err := a.with(req.Parent, func(st *instanceState) error {
		if st.profiles[req.AppProfileId] != nil {
			return base.AlreadyExistsf("app profile %q", req.AppProfileId)
		}
		p := proto.Clone(req.AppProfile).(*btapb.AppProfile)
		if p == nil {
			p = &btapb.AppProfile{}
		}
		p.Name, p.Etag = req.Parent+"/appProfiles/"+req.AppProfileId, "1"
		st.profiles[req.AppProfileId] = p
		out = proto.Clone(p).(*btapb.AppProfile)
		return nil
	})
	return out, err
}

// profile runs fn on a named app profile under the lock.
func (a *instanceAdminServer) profile(name string, fn func(st *instanceState, id string) error) error {
	inst, id, err := splitChild(name, "appProfiles")
	if err != nil {
		return toStatus(err)
	}
	return a.with(inst, func(st *instanceState) error {
		if st.profiles[id] == nil {
			return base.NotFoundf("app profile %q", name)
		}
		return fn(st, id)
	})
}

func (a *instanceAdminServer) GetAppProfile(ctx context.Context, req *btapb.GetAppProfileRequest) (*btapb.AppProfile, error) {
	var out *btapb.AppProfile
	err := a.profile(req.Name, func(st *instanceState, id string) error {
		out = proto.Clone(st.profiles[id]).(*btapb.AppProfile)
		return nil
	})
	return out, err
}

func (a *instanceAdminServer) ListAppProfiles(ctx context.Context, req *btapb.ListAppProfilesRequest) (*btapb.ListAppProfilesResponse, error) {
	resp := &btapb.ListAppProfilesResponse{}
	err := a.with(req.Parent, func(st *instanceState) error {
		for _, id := range sortedKeys(st.profiles) {
			resp.AppProfiles = append(resp.AppProfiles, proto.Clone(st.profiles[id]).(*btapb.AppProfile))
		}
		return nil
	})
	return resp, err
}

func (a *instanceAdminServer) UpdateAppProfile(ctx context.Context, req *btapb.UpdateAppProfileRequest) (*longrunningpb.Operation, error) {
	var out *btapb.AppProfile
	err := a.profile(req.GetAppProfile().GetName(), func(st *instanceState, id string) error {
		p := proto.Clone(req.AppProfile).(*btapb.AppProfile)
		p.Etag = st.profiles[id].Etag + "1"
		st.profiles[id] = p
		out = proto.Clone(p).(*btapb.AppProfile)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return doneOperation(out.Name, &btapb.UpdateAppProfileMetadata{}, out)
}

func (a *instanceAdminServer) DeleteAppProfile(ctx context.Context, req *btapb.DeleteAppProfileRequest) (*emptypb.Empty, error) {
	err := a.profile(req.Name, func(st *instanceState, id string) error {
		delete(st.profiles, id)
		return nil
	})
	return &emptypb.Empty{}, err
}
