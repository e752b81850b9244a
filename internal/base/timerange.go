package base

import "encoding/binary"

// TimeRange is a half-open range of timestamps [Start, End).
type TimeRange struct {
	Start, End int64
}

// AllTime covers every cell timestamp.
var AllTime = TimeRange{Start: MinTimestamp, End: TombstoneTimestamp}

// Contains reports whether ts lies in r.
func (r TimeRange) Contains(ts int64) bool { return ts >= r.Start && ts < r.End }

// EncodeTimeRange is the value of a KindDeleteCells entry.
func EncodeTimeRange(r TimeRange) []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 16), uint64(r.Start))
	return binary.BigEndian.AppendUint64(b, uint64(r.End))
}

// DecodeTimeRange parses the value of a KindDeleteCells entry.
func DecodeTimeRange(b []byte) (TimeRange, error) {
	if len(b) != 16 {
		return TimeRange{}, ErrBadKey
	}
	return TimeRange{
		Start: int64(binary.BigEndian.Uint64(b)),
		End:   int64(binary.BigEndian.Uint64(b[8:])),
	}, nil
}
