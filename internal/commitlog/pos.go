package commitlog

import "fmt"

// Pos is the position of a record in the log: the segment it is in and the
// offset of its frame in that segment. The zero Pos is before every record.
type Pos struct {
	Segment uint64 `json:"segment"`
	Offset  int64  `json:"offset"`
}

// Less reports whether p comes before q in the log.
func (p Pos) Less(q Pos) bool {
	if p.Segment != q.Segment {
		return p.Segment < q.Segment
	}
	return p.Offset < q.Offset
}

// String formats p as segment/offset.
func (p Pos) String() string { return fmt.Sprintf("%d/%d", p.Segment, p.Offset) }
