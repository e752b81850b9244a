package shell

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"cloud.google.com/go/bigtable"
)

// ls lists the instance's tables, or one table's families and GC policies.
func ls(ctx context.Context, s *session, args []string) error {
	if len(args) > 1 {
		return usagef("want at most 1 argument, got %d", len(args))
	}
	ac, err := s.adminClient(ctx)
	if err != nil {
		return err
	}
	if len(args) == 1 {
		return lsTable(ctx, s, ac, args[0])
	}
	tables, err := ac.Tables(ctx)
	if err != nil {
		return err
	}
	sort.Strings(tables)
	for _, t := range tables {
		fmt.Fprintln(s.out, t)
	}
	return nil
}

func lsTable(ctx context.Context, s *session, ac *bigtable.AdminClient, table string) error {
	ti, err := ac.TableInfo(ctx, table)
	if err != nil {
		return err
	}
	fams := ti.FamilyInfos
	sort.Slice(fams, func(i, j int) bool { return fams[i].Name < fams[j].Name })
	tw := tabwriter.NewWriter(s.out, 10, 8, 4, ' ', 0)
	fmt.Fprintf(tw, "Family Name\tGC Policy\n-----------\t---------\n")
	for _, f := range fams {
		fmt.Fprintf(tw, "%s\t%s\n", f.Name, formatGCPolicy(f.FullGCPolicy))
	}
	return tw.Flush()
}

// createTable creates a table with optional families and split points.
func createTable(ctx context.Context, s *session, args []string) error {
	pos, rest, err := positional(args, 1)
	if err != nil {
		return err
	}
	o, err := parseOpts(rest, "families", "splits")
	if err != nil {
		return err
	}
	conf := &bigtable.TableConf{TableID: pos[0], SplitKeys: o.list("splits")}
	if conf.ColumnFamilies, err = parseFamilies(o.list("families")); err != nil {
		return err
	}
	ac, err := s.adminClient(ctx)
	if err != nil {
		return err
	}
	return ac.CreateTableFromConf(ctx, conf)
}

// parseFamilies reads family[:gcpolicy] items.
func parseFamilies(items []string) (map[string]bigtable.Family, error) {
	if len(items) == 0 {
		return nil, nil
	}
	fams := map[string]bigtable.Family{}
	for _, item := range items {
		name, policy, hasPolicy := strings.Cut(item, ":")
		if name == "" {
			return nil, usagef("empty family name in families=")
		}
		var f bigtable.Family
		if hasPolicy {
			p, err := parseGCPolicy(policy)
			if err != nil {
				return nil, usagef("family %s: %v", name, err)
			}
			f.GCPolicy = p
		}
		fams[name] = f
	}
	return fams, nil
}

func deleteTable(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 1); err != nil {
		return err
	}
	ac, err := s.adminClient(ctx)
	if err != nil {
		return err
	}
	return ac.DeleteTable(ctx, args[0])
}

func createFamily(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 2); err != nil {
		return err
	}
	ac, err := s.adminClient(ctx)
	if err != nil {
		return err
	}
	return ac.CreateColumnFamily(ctx, args[0], args[1])
}

func deleteFamily(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 2); err != nil {
		return err
	}
	ac, err := s.adminClient(ctx)
	if err != nil {
		return err
	}
	return ac.DeleteColumnFamily(ctx, args[0], args[1])
}

// setGCPolicy sets a family's GC policy; the policy is the remaining
// arguments joined by spaces.
func setGCPolicy(ctx context.Context, s *session, args []string) error {
	pos, rest, err := positional(args, 2)
	if err != nil {
		return err
	}
	pol, err := parseGCPolicy(strings.Join(rest, " "))
	if err != nil {
		return usagef("%v", err)
	}
	ac, err := s.adminClient(ctx)
	if err != nil {
		return err
	}
	return ac.SetGCPolicy(ctx, pos[0], pos[1], pol)
}
