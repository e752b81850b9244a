package base

// Mutation is one change to a row. A row mutation is a list of them,
// applied in order and atomically.
type Mutation struct {
	// Kind is what the mutation does: KindPut (SetCell), KindDeleteCells
	// (DeleteFromColumn), KindDeleteFamily, KindDeleteRow, KindAggAdd
	// (AddToCell) or KindAggMerge (MergeToCell).
	Kind Kind
	// Family is the column family; empty for KindDeleteRow.
	Family string
	// Qualifier is the column qualifier, for puts, aggregates and
	// KindDeleteCells.
	Qualifier []byte
	// Timestamp is the cell timestamp in microseconds, for puts and
	// aggregates; ServerTimestamp asks the server for its time.
	Timestamp int64
	// Value is the cell value or the aggregate input.
	Value []byte
	// Range is the range of timestamps a KindDeleteCells mutation deletes.
	Range TimeRange
}

// ServerTimestamp in a mutation asks the server to set the timestamp.
const ServerTimestamp int64 = -1

// Entry returns the key (without row and seq) and value of the entry that
// records m in the sorted map.
func (m *Mutation) Entry() (family string, qualifier []byte, ts int64, value []byte) {
	switch m.Kind {
	case KindDeleteRow:
		return "", nil, TombstoneTimestamp, nil
	case KindDeleteFamily:
		return m.Family, nil, TombstoneTimestamp, nil
	case KindDeleteCells:
		return m.Family, m.Qualifier, TombstoneTimestamp, EncodeTimeRange(m.Range)
	}
	return m.Family, m.Qualifier, m.Timestamp, m.Value
}

// Cell is one value returned by a read.
type Cell struct {
	Family    string
	Qualifier []byte
	Timestamp int64
	Value     []byte
}

// Row is a row as a read returns it: its cells ordered by family,
// qualifier, and timestamp newest first.
type Row struct {
	Key   []byte
	Cells []Cell
}
