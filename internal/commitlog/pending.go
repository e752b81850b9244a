package commitlog

// batch is the completion shared by every record the writer takes in one
// go: one channel per batch, not per record.
type batch struct {
	done chan struct{} // closed once the batch is synced or failed
	err  error         // set before done is closed
}

func newBatch() *batch { return &batch{done: make(chan struct{})} }

// Pending is a record that Write has queued.
type Pending struct {
	pos Pos
	b   *batch
}

// Pos returns the record's position in the log.
func (p *Pending) Pos() Pos { return p.pos }

// Wait blocks until the record is written and synced, or the log failed.
// An error wraps ErrFailed and its cause.
func (p *Pending) Wait() error {
	<-p.b.done
	return p.b.err
}
