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
