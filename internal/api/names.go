package api

import (
	"regexp"
	"strings"
)

// Table names are the full Cloud Bigtable names,
// projects/P/instances/I/tables/T; the host keys tables by that name, so one
// server holds the tables of any number of instances.

var (
	idPattern       = regexp.MustCompile(`^[_a-zA-Z0-9][-_.a-zA-Z0-9]*$`)
	instancePattern = regexp.MustCompile(`^projects/[^/]+/instances/[^/]+$`)
)

const maxTableIDLen = 50

// parseTable checks a full table name and returns it with its instance.
func parseTable(name string) (instance, id string, err error) {
	i := strings.LastIndex(name, "/tables/")
	if i < 0 || !instancePattern.MatchString(name[:i]) {
		return "", "", invalidf("bad table name %q: want projects/P/instances/I/tables/T", name)
	}
	id = name[i+len("/tables/"):]
	if err := checkTableID(id); err != nil {
		return "", "", err
	}
	return name[:i], id, nil
}

// checkTableID checks a table id.
func checkTableID(id string) error {
	if len(id) > maxTableIDLen || !idPattern.MatchString(id) {
		return invalidf("bad table id %q: want [_a-zA-Z0-9][-_.a-zA-Z0-9]*, at most %d bytes", id, maxTableIDLen)
	}
	return nil
}

// checkInstance checks a full instance name.
func checkInstance(name string) error {
	if !instancePattern.MatchString(name) {
		return invalidf("bad instance name %q: want projects/P/instances/I", name)
	}
	return nil
}

// tableName joins an instance name and a table id.
func tableName(instance, id string) string { return instance + "/tables/" + id }
