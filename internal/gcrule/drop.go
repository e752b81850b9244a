package gcrule

// Drop reports whether the rule drops a version. index is the version's
// position among its column's versions, newest first, from 0; ts is its
// timestamp and now the current time, both in microseconds since the epoch.
// MaxVersions(n) drops index >= n; MaxAge(d) drops ts < now - d. Drop does
// not allocate.
func (r Rule) Drop(index int, ts, now int64) bool {
	switch r.kind {
	case KindMaxVersions:
		return index >= r.n
	case KindMaxAge:
		return ts < now-r.age.Microseconds()
	case KindUnion:
		for i := range r.children {
			if r.children[i].Drop(index, ts, now) {
				return true
			}
		}
		return false
	case KindIntersection:
		if len(r.children) == 0 {
			return false
		}
		for i := range r.children {
			if !r.children[i].Drop(index, ts, now) {
				return false
			}
		}
		return true
	}
	return false
}

// VersionLimit returns the n from which the rule drops every version of a
// column, whatever its timestamp, and whether there is one: a reader that
// has kept n versions of a column can skip the rest.
func (r Rule) VersionLimit() (int, bool) {
	switch r.kind {
	case KindMaxVersions:
		return r.n, true
	case KindUnion:
		n, ok := 0, false
		for i := range r.children {
			if m, mok := r.children[i].VersionLimit(); mok && (!ok || m < n) {
				n, ok = m, true
			}
		}
		return n, ok
	case KindIntersection:
		n := 0
		for i := range r.children {
			m, ok := r.children[i].VersionLimit()
			if !ok {
				return 0, false
			}
			n = max(n, m)
		}
		return n, len(r.children) > 0
	}
	return 0, false
}
