package shell

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tabuladb/tabula/internal/adminpb"
)

// compressions maps the shell's compression names to the admin API's.
var compressions = map[string]adminpb.Compression{
	"none":    adminpb.Compression_NONE,
	"snappy":  adminpb.Compression_SNAPPY,
	"zstd":    adminpb.Compression_ZSTD,
	"twopass": adminpb.Compression_TWO_PASS,
}

func compressionName(c adminpb.Compression) string {
	for name, v := range compressions {
		if v == c {
			return name
		}
	}
	return "default"
}

// lg lists a table's locality groups.
func lg(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 1); err != nil {
		return err
	}
	ac, err := s.tabulaAdmin()
	if err != nil {
		return err
	}
	groups, err := ac.GetLocalityGroups(ctx, &adminpb.GetLocalityGroupsRequest{Table: s.tableName(args[0])})
	if err != nil {
		return err
	}
	return printGroups(s.out, groups)
}

func printGroups(w io.Writer, lgs *adminpb.LocalityGroups) error {
	tw := tabwriter.NewWriter(w, 8, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "Group\tFamilies\tIn Memory\tCompression\tBlock Size\tBloom\n")
	fmt.Fprintf(tw, "-----\t--------\t---------\t-----------\t----------\t-----\n")
	for _, g := range lgs.GetGroups() {
		block := "default"
		if g.GetBlockSize() > 0 {
			block = strconv.Itoa(int(g.GetBlockSize()))
		}
		fams := strings.Join(g.GetFamilies(), ",")
		if fams == "" {
			fams = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%t\t%s\t%s\t%t\n", g.GetName(), fams, g.GetInMemory(),
			compressionName(g.GetCompression()), block, g.GetBloomFilter())
	}
	return tw.Flush()
}

// setLG creates or changes a locality group; only the settings given change.
func setLG(ctx context.Context, s *session, args []string) error {
	pos, rest, err := positional(args, 2)
	if err != nil {
		return err
	}
	req, err := parseSetLG(rest)
	if err != nil {
		return err
	}
	req.Table, req.Group = s.tableName(pos[0]), pos[1]
	ac, err := s.tabulaAdmin()
	if err != nil {
		return err
	}
	groups, err := ac.SetLocalityGroup(ctx, req)
	if err != nil {
		return err
	}
	return printGroups(s.out, groups)
}

// parseSetLG reads inmemory=, compression=, blocksize= and bloom= into a
// request whose update mask names just those settings.
func parseSetLG(args []string) (*adminpb.SetLocalityGroupRequest, error) {
	o, err := parseOpts(args, "inmemory", "compression", "blocksize", "bloom")
	if err != nil {
		return nil, err
	}
	req := &adminpb.SetLocalityGroupRequest{}
	if req.InMemory, err = o.bool("inmemory", false); err != nil {
		return nil, err
	}
	if req.BloomFilter, err = o.bool("bloom", false); err != nil {
		return nil, err
	}
	bs, err := o.int("blocksize", 0)
	if err != nil || bs > 1<<30 {
		return nil, usagef("blocksize=%q is not a size in bytes", o["blocksize"])
	}
	req.BlockSize = int32(bs)
	if name, ok := o["compression"]; ok {
		c, known := compressions[name]
		if !known {
			return nil, usagef("compression=%q is not none, snappy, zstd or twopass", name)
		}
		req.Compression = c
	}
	req.UpdateMask = updateMask(o)
	return req, nil
}

// updateMask names the admin API fields set by the options present.
func updateMask(o opts) []string {
	fields := []struct{ opt, field string }{
		{"inmemory", "in_memory"}, {"compression", "compression"},
		{"blocksize", "block_size"}, {"bloom", "bloom_filter"},
	}
	var mask []string
	for _, f := range fields {
		if _, ok := o[f.opt]; ok {
			mask = append(mask, f.field)
		}
	}
	return mask
}

// setFamilyGroup moves a family into a locality group.
func setFamilyGroup(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 3); err != nil {
		return err
	}
	ac, err := s.tabulaAdmin()
	if err != nil {
		return err
	}
	groups, err := ac.SetFamilyGroup(ctx, &adminpb.SetFamilyGroupRequest{
		Table: s.tableName(args[0]), Families: []string{args[1]}, Group: args[2]})
	if err != nil {
		return err
	}
	return printGroups(s.out, groups)
}
