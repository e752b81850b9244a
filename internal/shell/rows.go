package shell

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cloud.google.com/go/bigtable"
)

// set writes cells to one row: set TABLE ROW family:column=value ... [ts=N].
func set(ctx context.Context, s *session, args []string) error {
	pos, rest, err := positional(args, 2)
	if err != nil {
		return err
	}
	m, err := parseSets(rest)
	if err != nil {
		return err
	}
	c, err := s.dataClient(ctx)
	if err != nil {
		return err
	}
	return c.Open(pos[0]).Apply(ctx, pos[1], m)
}

// parseSets builds a mutation from family:column=value and ts=N arguments.
func parseSets(args []string) (*bigtable.Mutation, error) {
	ts := bigtable.ServerTime
	type cell struct{ fam, col, val string }
	var cells []cell
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, usagef("argument %q is not family:column=value", a)
		}
		if k == "ts" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return nil, usagef("ts=%q is not a timestamp in microseconds", v)
			}
			ts = bigtable.Timestamp(n)
			continue
		}
		fam, col, ok := strings.Cut(k, ":")
		if !ok || fam == "" {
			return nil, usagef("argument %q is not family:column=value", a)
		}
		cells = append(cells, cell{fam, col, v})
	}
	if len(cells) == 0 {
		return nil, usagef("no family:column=value to set")
	}
	m := bigtable.NewMutation()
	for _, c := range cells {
		m.Set(c.fam, c.col, ts, []byte(c.val))
	}
	return m, nil
}

// read prints a range of rows.
func read(ctx context.Context, s *session, args []string) error {
	pos, rest, err := positional(args, 1)
	if err != nil {
		return err
	}
	o, err := parseOpts(rest, "start", "end", "prefix", "count", "columns",
		"cells-per-column", "regex", "keys-only")
	if err != nil {
		return err
	}
	rs, err := readRange(o)
	if err != nil {
		return err
	}
	ropts, keysOnly, err := readOptions(o)
	if err != nil {
		return err
	}
	c, err := s.dataClient(ctx)
	if err != nil {
		return err
	}
	return c.Open(pos[0]).ReadRows(ctx, rs, func(r bigtable.Row) bool {
		printRow(s.out, r, keysOnly)
		return true
	}, ropts...)
}

// readRange turns start=, end= and prefix= into a row set.
func readRange(o opts) (bigtable.RowSet, error) {
	start, end := o["start"], o["end"]
	if p, ok := o["prefix"]; ok {
		if start != "" || end != "" {
			return nil, usagef("prefix= cannot be combined with start= or end=")
		}
		return bigtable.PrefixRange(p), nil
	}
	if end == "" {
		return bigtable.InfiniteRange(start), nil
	}
	return bigtable.NewRange(start, end), nil
}

// readOptions turns count=, columns=, cells-per-column=, regex= and
// keys-only= into read options.
func readOptions(o opts) ([]bigtable.ReadOption, bool, error) {
	var ropts []bigtable.ReadOption
	n, err := o.int("count", 0)
	if err != nil {
		return nil, false, err
	}
	if n > 0 {
		ropts = append(ropts, bigtable.LimitRows(n))
	}
	keysOnly, err := o.bool("keys-only", false)
	if err != nil {
		return nil, false, err
	}
	filters, err := rowFilters(o)
	if err != nil {
		return nil, false, err
	}
	if keysOnly {
		filters = append(filters, bigtable.CellsPerRowLimitFilter(1), bigtable.StripValueFilter())
	}
	if f := chain(filters); f != nil {
		ropts = append(ropts, bigtable.RowFilter(f))
	}
	return ropts, keysOnly, nil
}

// rowFilters builds the filters named by regex=, columns= and
// cells-per-column=, in that order.
func rowFilters(o opts) ([]bigtable.Filter, error) {
	var fs []bigtable.Filter
	if re, ok := o["regex"]; ok {
		if _, err := regexp.Compile(re); err != nil {
			return nil, usagef("regex=%q: %v", re, err)
		}
		fs = append(fs, bigtable.RowKeyFilter(re))
	}
	if cols := o.list("columns"); cols != nil {
		fs = append(fs, columnsFilter(cols))
	}
	n, err := o.int("cells-per-column", 0)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		fs = append(fs, bigtable.LatestNFilter(int(n)))
	}
	return fs, nil
}

// columnsFilter passes cells whose family:qualifier match any of cols. Each
// is family, family:qualifier or :qualifier; both parts are RE2 regular
// expressions, which the API matches against the whole name.
func columnsFilter(cols []string) bigtable.Filter {
	var any []bigtable.Filter
	for _, c := range cols {
		fam, qual, _ := strings.Cut(c, ":")
		var parts []bigtable.Filter
		if fam != "" {
			parts = append(parts, bigtable.FamilyFilter(fam))
		}
		if qual != "" {
			parts = append(parts, bigtable.ColumnFilter(qual))
		}
		if f := chain(parts); f != nil {
			any = append(any, f)
		} else {
			any = append(any, bigtable.PassAllFilter())
		}
	}
	if len(any) == 1 {
		return any[0]
	}
	return bigtable.InterleaveFilters(any...)
}

// chain joins filters into one; nil when there are none.
func chain(fs []bigtable.Filter) bigtable.Filter {
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return fs[0]
	}
	return bigtable.ChainFilters(fs...)
}

// lookup prints one row.
func lookup(ctx context.Context, s *session, args []string) error {
	pos, rest, err := positional(args, 2)
	if err != nil {
		return err
	}
	o, err := parseOpts(rest, "columns", "cells-per-column")
	if err != nil {
		return err
	}
	filters, err := rowFilters(o)
	if err != nil {
		return err
	}
	var ropts []bigtable.ReadOption
	if f := chain(filters); f != nil {
		ropts = append(ropts, bigtable.RowFilter(f))
	}
	c, err := s.dataClient(ctx)
	if err != nil {
		return err
	}
	r, err := c.Open(pos[0]).ReadRow(ctx, pos[1], ropts...)
	if err != nil {
		return err
	}
	if len(r) > 0 {
		printRow(s.out, r, false)
	}
	return nil
}

// count prints the number of rows, optionally of those with a prefix.
func count(ctx context.Context, s *session, args []string) error {
	pos, rest, err := positional(args, 1)
	if err != nil {
		return err
	}
	o, err := parseOpts(rest, "prefix")
	if err != nil {
		return err
	}
	rs := bigtable.RowSet(bigtable.InfiniteRange(""))
	if p, ok := o["prefix"]; ok {
		rs = bigtable.PrefixRange(p)
	}
	c, err := s.dataClient(ctx)
	if err != nil {
		return err
	}
	n := 0
	f := bigtable.ChainFilters(bigtable.CellsPerRowLimitFilter(1), bigtable.StripValueFilter())
	err = c.Open(pos[0]).ReadRows(ctx, rs, func(bigtable.Row) bool { n++; return true }, bigtable.RowFilter(f))
	if err != nil {
		return err
	}
	fmt.Fprintln(s.out, n)
	return nil
}

func deleteRow(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 2); err != nil {
		return err
	}
	m := bigtable.NewMutation()
	m.DeleteRow()
	return apply(ctx, s, args[0], args[1], m)
}

func deleteColumn(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 4); err != nil {
		return err
	}
	m := bigtable.NewMutation()
	m.DeleteCellsInColumn(args[2], args[3])
	return apply(ctx, s, args[0], args[1], m)
}

func apply(ctx context.Context, s *session, table, row string, m *bigtable.Mutation) error {
	c, err := s.dataClient(ctx)
	if err != nil {
		return err
	}
	return c.Open(table).Apply(ctx, row, m)
}

func deleteAllRows(ctx context.Context, s *session, args []string) error {
	if err := exactly(args, 1); err != nil {
		return err
	}
	ac, err := s.adminClient(ctx)
	if err != nil {
		return err
	}
	return ac.DropAllRows(ctx, args[0])
}
