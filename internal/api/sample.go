package api

import (
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
)

// SampleRowKeys answers the host's samples: row keys at tablet boundaries
// and SSTable index points, with the approximate bytes before each; the last
// is the empty key with the table's size.
func (d *dataServer) SampleRowKeys(req *btpb.SampleRowKeysRequest, stream btpb.Bigtable_SampleRowKeysServer) error {
	name, err := d.table(req.TableName, req.AuthorizedViewName+req.MaterializedViewName)
	if err != nil {
		return toStatus(err)
	}
	samples, err := d.s.host.SampleRowKeys(name)
	if err != nil {
		return toStatus(err)
	}
	for _, s := range samples {
		if err := stream.Send(&btpb.SampleRowKeysResponse{RowKey: s.Row, OffsetBytes: s.Offset}); err != nil {
			return err
		}
	}
	return nil
}
