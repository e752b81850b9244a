package shell

import (
	"slices"
	"strconv"
	"strings"
)

// opts are a verb's key=value arguments.
type opts map[string]string

// parseOpts reads key=value arguments, accepting only the keys named.
func parseOpts(args []string, keys ...string) (opts, error) {
	o := opts{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, usagef("argument %q is not key=value", a)
		}
		if !slices.Contains(keys, k) {
			return nil, usagef("unknown option %q", k)
		}
		if _, dup := o[k]; dup {
			return nil, usagef("option %q given twice", k)
		}
		o[k] = v
	}
	return o, nil
}

// positional splits args into exactly n leading arguments and the rest.
func positional(args []string, n int) ([]string, []string, error) {
	if len(args) < n {
		return nil, nil, usagef("want %d arguments, got %d", n, len(args))
	}
	return args[:n], args[n:], nil
}

// exactly checks that there are exactly n arguments.
func exactly(args []string, n int) error {
	if len(args) != n {
		return usagef("want %d arguments, got %d", n, len(args))
	}
	return nil
}

// int returns the non-negative integer option key, or def when absent.
func (o opts) int(key string, def int64) (int64, error) {
	s, ok := o[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, usagef("%s=%q is not a non-negative integer", key, s)
	}
	return n, nil
}

// bool returns the boolean option key, or def when absent.
func (o opts) bool(key string, def bool) (bool, error) {
	s, ok := o[key]
	if !ok {
		return def, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, usagef("%s=%q is not true or false", key, s)
	}
	return b, nil
}

// list returns the comma-separated option key, or nil when absent or empty.
func (o opts) list(key string) []string {
	s := o[key]
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
