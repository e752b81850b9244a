package shell

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/tabuladb/tabula/internal/adminpb"
)

// tablets lists a table's tablets with their row ranges and sizes.
func tablets(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 1); err != nil {
		return err
	}
	ac, err := s.tabulaAdmin()
	if err != nil {
		return err
	}
	resp, err := ac.ListTablets(ctx, &adminpb.ListTabletsRequest{Table: s.tableName(args[0])})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(s.out, 8, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "Tablet\tStart\tEnd\tBytes\n------\t-----\t---\t-----\n")
	for _, t := range resp.GetTablets() {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\n", t.GetId(), rowBound(t.GetStartKey(), "(begin)"),
			rowBound(t.GetEndKey(), "(end)"), t.GetApproximateBytes())
	}
	return tw.Flush()
}

// rowBound quotes a tablet boundary, naming an empty one.
func rowBound(key []byte, empty string) string {
	if len(key) == 0 {
		return empty
	}
	return strconv.Quote(string(key))
}

// flush runs a minor compaction on each of a table's tablets.
func flush(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 1); err != nil {
		return err
	}
	ac, err := s.tabulaAdmin()
	if err != nil {
		return err
	}
	resp, err := ac.Flush(ctx, &adminpb.TableOpRequest{Table: s.tableName(args[0])})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "flushed %d tablets\n", resp.GetTablets())
	return nil
}

// compact runs a major compaction of a table's tablets. The admin API's
// compactions are always major; major=true is accepted for clarity.
func compact(ctx context.Context, s *session, args []string) error {
	pos, rest, err := positional(args, 1)
	if err != nil {
		return err
	}
	o, err := parseOpts(rest, "major")
	if err != nil {
		return err
	}
	major, err := o.bool("major", true)
	if err != nil {
		return err
	}
	if !major {
		return usagef("compactions are always major; major=false is not supported")
	}
	ac, err := s.tabulaAdmin()
	if err != nil {
		return err
	}
	resp, err := ac.Compact(ctx, &adminpb.TableOpRequest{Table: s.tableName(pos[0])})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "compacted %d tablets\n", resp.GetTablets())
	return nil
}

// split splits the tablet holding a row key at that key.
func split(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 2); err != nil {
		return err
	}
	if args[1] == "" {
		return usagef("empty row key")
	}
	ac, err := s.tabulaAdmin()
	if err != nil {
		return err
	}
	req := &adminpb.SplitRequest{Table: s.tableName(args[0]), RowKey: []byte(args[1])}
	if _, err := ac.Split(ctx, req); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "split %s at %q\n", args[0], args[1])
	return nil
}
