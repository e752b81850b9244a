package shell

import "context"

// verb is one shell command.
type verb struct {
	name     string
	synopsis string // arguments, for the usage line
	short    string // one line, for the verb list
	long     string // argument details, for "tabula help VERB"
	ext      bool   // uses Tabula's admin extension
	run      func(ctx context.Context, s *session, args []string) error
}

const gcGrammar = `A GC policy is "never", or rules combined with "and" (or "&&") and
"or" (or "||"); "and" binds tighter, and parentheses group:
  maxage=D        drop cells older than D; units ms, s, m, h, d (30d, 12h, 5m)
  maxversions=N   keep only the newest N cells of each column`

const columnsDoc = `  columns=F:Q,...       only these columns; F or F:Q or :Q, each part a
                        regular expression matching the whole name
  cells-per-column=N    only the newest N cells of each column`

// verbs are the shell's commands by name.
var verbs = map[string]*verb{
	"ls": {name: "ls", synopsis: "[TABLE]", run: ls,
		short: "List tables, or a table's column families and GC policies"},
	"createtable": {name: "createtable", synopsis: "TABLE [families=FAMILY[:GCPOLICY],...] [splits=ROW,...]",
		short: "Create a table", run: createTable,
		long: "  families=   column families to create, each with an optional GC policy\n" +
			"  splits=     row keys at which to pre-split the table\n\n" + gcGrammar},
	"deletetable": {name: "deletetable", synopsis: "TABLE", short: "Delete a table", run: deleteTable},
	"createfamily": {name: "createfamily", synopsis: "TABLE FAMILY",
		short: "Create a column family", run: createFamily},
	"deletefamily": {name: "deletefamily", synopsis: "TABLE FAMILY",
		short: "Delete a column family", run: deleteFamily},
	"setgcpolicy": {name: "setgcpolicy", synopsis: "TABLE FAMILY ( maxage=D | maxversions=N | never ) [ (and|or) ... ]",
		short: "Set a column family's garbage-collection policy", run: setGCPolicy, long: gcGrammar},
	"set": {name: "set", synopsis: "TABLE ROW FAMILY:COLUMN=VALUE ... [ts=N]",
		short: "Set cells of a row", run: set,
		long: "  ts=N   timestamp in microseconds for all the cells (default: the server's time)"},
	"read": {name: "read", synopsis: "TABLE [start=ROW] [end=ROW] [prefix=P] [count=N] [columns=F:Q,...] " +
		"[cells-per-column=N] [regex=R] [keys-only=true]", short: "Read rows", run: read,
		long: "  start=ROW             first row to read\n" +
			"  end=ROW               read up to, not including, this row\n" +
			"  prefix=P              only rows whose key starts with P\n" +
			"  count=N               at most N rows\n" + columnsDoc + "\n" +
			"  regex=R               only rows whose whole key matches the RE2 expression R\n" +
			"  keys-only=true        print only the row keys"},
	"lookup": {name: "lookup", synopsis: "TABLE ROW [columns=F:Q,...] [cells-per-column=N]",
		short: "Read one row", run: lookup, long: columnsDoc},
	"deleterow": {name: "deleterow", synopsis: "TABLE ROW", short: "Delete a row", run: deleteRow},
	"deletecolumn": {name: "deletecolumn", synopsis: "TABLE ROW FAMILY COLUMN",
		short: "Delete all cells of a column of a row", run: deleteColumn},
	"deleteallrows": {name: "deleteallrows", synopsis: "TABLE",
		short: "Delete all the rows of a table", run: deleteAllRows},
	"count": {name: "count", synopsis: "TABLE [prefix=P]", short: "Count rows", run: count},
	"lg": {name: "lg", synopsis: "TABLE", ext: true, run: lg,
		short: "List a table's locality groups, their families and settings"},
	"setlg": {name: "setlg", synopsis: "TABLE GROUP [inmemory=true|false] [compression=none|snappy|zstd|twopass] " +
		"[blocksize=N] [bloom=true|false]", ext: true, run: setLG,
		short: "Create a locality group or change its settings",
		long:  "Only the settings given change; with none, the group is created with default settings.\n  blocksize=N   SSTable block size in bytes (0: the default, 64 KiB)"},
	"setfamilygroup": {name: "setfamilygroup", synopsis: "TABLE FAMILY GROUP", ext: true, run: setFamilyGroup,
		short: "Move a column family into a locality group"},
	"tablets": {name: "tablets", synopsis: "TABLE", ext: true, run: tablets,
		short: "List a table's tablets with their row ranges and sizes"},
	"flush": {name: "flush", synopsis: "TABLE", ext: true, run: flush,
		short: "Flush a table's memtables (a minor compaction)"},
	"compact": {name: "compact", synopsis: "TABLE [major=true]", ext: true, run: compact,
		short: "Major-compact a table's tablets: drop deleted and collected cells"},
	"split": {name: "split", synopsis: "TABLE ROWKEY", ext: true, run: split,
		short: "Split the tablet holding ROWKEY at ROWKEY"},
}
