package api

import (
	"bytes"
	"slices"
	"time"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/filter"
	"github.com/tabuladb/tabula/internal/tablet"
)

const (
	// responseBytes is the size at which a ReadRows response is sent.
	responseBytes = 1 << 20
	// chunkBytes is the largest piece of a value in one chunk.
	chunkBytes = 1 << 20
	// skippedRowsReport is how many rows a filter may drop in a row before
	// a response reports the scan's progress in last_scanned_row_key.
	skippedRowsReport = 1000
	// maxRowBytes is the most a row read whole may hold (DESIGN §2).
	maxRowBytes = 256 << 20
)

// rowBytes is the size of a row's cells.
func rowBytes(cells []filter.Cell) int {
	n := 0
	for i := range cells {
		n += len(cells[i].Family) + len(cells[i].Qualifier) + len(cells[i].Value) + 16
	}
	return n
}

func (d *dataServer) ReadRows(req *btpb.ReadRowsRequest, stream btpb.Bigtable_ReadRowsServer) error {
	start := d.s.clock()
	name, err := d.table(req.TableName, req.AuthorizedViewName+req.MaterializedViewName)
	if err != nil {
		return toStatus(err)
	}
	rs, err := d.newRowSender(req, stream)
	if err != nil {
		return toStatus(err)
	}
	spans, err := toSpans(req.Rows)
	if err != nil {
		return toStatus(err)
	}
	if req.Reversed {
		slices.Reverse(spans)
	}
	for _, sp := range spans {
		o := tablet.ScanOptions{Start: sp.start, End: sp.end, Reverse: req.Reversed}
		if err := d.s.host.Scan(name, o, rs.row); err != nil {
			return toStatus(err)
		}
		if rs.done() {
			break
		}
	}
	return toStatus(rs.finish(d.s.clock().Sub(start)))
}

// rowSender turns rows into chunks and batches them into responses.
type rowSender struct {
	stream  btpb.Bigtable_ReadRowsServer
	prog    *filter.Program
	rnd     func() float64
	limit   int64
	stats   bool
	resp    *btpb.ReadRowsResponse
	size    int
	err     error
	counts  readCounts
	stopped bool
	// skipped counts the rows filtered out since the last response.
	skipped int
}

func (d *dataServer) newRowSender(req *btpb.ReadRowsRequest, stream btpb.Bigtable_ReadRowsServer) (*rowSender, error) {
	if req.RowsLimit < 0 {
		return nil, invalidf("negative rows_limit %d", req.RowsLimit)
	}
	prog, err := compileFilter(req.Filter)
	if err != nil {
		return nil, err
	}
	return &rowSender{
		stream: stream, prog: prog, rnd: d.s.random, limit: req.RowsLimit,
		stats: req.RequestStatsView == btpb.ReadRowsRequest_REQUEST_STATS_FULL,
		resp:  &btpb.ReadRowsResponse{},
	}, nil
}

// done reports whether the read must stop: the limit is reached, the client
// left, or a send failed.
func (rs *rowSender) done() bool {
	return rs.stopped || rs.err != nil
}

// row filters and sends one row; it returns false to stop the scan.
func (rs *rowSender) row(r base.Row) bool {
	if err := rs.stream.Context().Err(); err != nil {
		rs.err = err
		return false
	}
	rs.counts.RowsSeenCount++
	rs.counts.CellsSeenCount += int64(len(r.Cells))
	cells := rs.prog.Apply(r, rs.rnd)
	if size := rowBytes(cells); size > maxRowBytes {
		rs.err = base.ResourceExhaustedf("api: row %q holds %d bytes, over the %d a read returns whole; narrow it with a filter", r.Key, size, maxRowBytes)
		return false
	}
	if len(cells) > 0 {
		rs.addRow(r.Key, cells)
		rs.counts.RowsReturnedCount++
		rs.counts.CellsReturnedCount += int64(len(cells))
	}
	if len(cells) == 0 {
		rs.skipped++
	}
	if rs.skipped >= skippedRowsReport {
		// Tell the client how far the scan got, so a retry of a scan a
		// filter mostly empties resumes here.
		rs.resp.LastScannedRowKey = bytes.Clone(r.Key)
		rs.send()
	}
	if rs.size >= responseBytes {
		rs.send()
	}
	if rs.limit > 0 && rs.counts.RowsReturnedCount >= rs.limit {
		rs.stopped = true
	}
	return !rs.done()
}

// addRow appends a row's chunks to the pending response.
func (rs *rowSender) addRow(key []byte, cells []filter.Cell) {
	for i := range cells {
		c := &cells[i]
		var prev *filter.Cell
		if i > 0 {
			prev = &cells[i-1]
		}
		first := rs.cellChunk(key, c, prev)
		rs.addValue(first, c.Value)
	}
	rs.resp.Chunks[len(rs.resp.Chunks)-1].RowStatus = &btpb.ReadRowsResponse_CellChunk_CommitRow{CommitRow: true}
}

// cellChunk returns the first chunk of a cell; key fields repeat only where
// they change from the previous cell of the row.
func (rs *rowSender) cellChunk(key []byte, c, prev *filter.Cell) *btpb.ReadRowsResponse_CellChunk {
	ch := &btpb.ReadRowsResponse_CellChunk{TimestampMicros: c.Timestamp, Labels: c.Labels}
	if prev == nil {
		ch.RowKey = key
		rs.size += len(key)
	}
	if prev == nil || prev.Family != c.Family {
		ch.FamilyName = wrapperspb.String(c.Family)
	}
	if ch.FamilyName != nil || string(prev.Qualifier) != string(c.Qualifier) {
		ch.Qualifier = wrapperspb.Bytes(c.Qualifier)
		rs.size += len(c.Qualifier)
	}
	return ch
}

// addValue adds a cell's value to its first chunk, splitting values over
// chunkBytes into several chunks. A row stays within one response: the
// official Go client checks that each response ends on a row boundary.
func (rs *rowSender) addValue(ch *btpb.ReadRowsResponse_CellChunk, v []byte) {
	total := int32(len(v))
	if len(v) > chunkBytes {
		ch.ValueSize = total
	}
	for {
		n := min(len(v), chunkBytes)
		ch.Value = v[:n]
		rs.resp.Chunks = append(rs.resp.Chunks, ch)
		rs.size += n + 32
		v = v[n:]
		if len(v) == 0 {
			ch.ValueSize = 0
			return
		}
		ch = &btpb.ReadRowsResponse_CellChunk{ValueSize: total}
	}
}

// send sends the pending response.
func (rs *rowSender) send() {
	if rs.err == nil {
		rs.err = rs.stream.Send(rs.resp)
	}
	rs.resp, rs.size, rs.skipped = &btpb.ReadRowsResponse{}, 0, 0
}

// finish sends what is pending, with the request stats if asked for.
func (rs *rowSender) finish(elapsed time.Duration) error {
	if rs.err != nil {
		return rs.err
	}
	if rs.stats {
		rs.resp.RequestStats = &btpb.RequestStats{StatsView: &btpb.RequestStats_FullReadStatsView{FullReadStatsView: &btpb.FullReadStatsView{
			ReadIterationStats:  rs.counts.proto(),
			RequestLatencyStats: &btpb.RequestLatencyStats{FrontendServerLatency: durationpb.New(elapsed)},
		}}}
	}
	if len(rs.resp.Chunks) > 0 || rs.resp.RequestStats != nil {
		rs.send()
	}
	return rs.err
}

// readCounts are the counts of a read's request stats.
type readCounts struct {
	RowsSeenCount, RowsReturnedCount, CellsSeenCount, CellsReturnedCount int64
}

func (c *readCounts) proto() *btpb.ReadIterationStats {
	return &btpb.ReadIterationStats{
		RowsSeenCount: c.RowsSeenCount, RowsReturnedCount: c.RowsReturnedCount,
		CellsSeenCount: c.CellsSeenCount, CellsReturnedCount: c.CellsReturnedCount,
	}
}
