package bench

import (
	"fmt"
	"strings"
	"time"
)

// Config is what the workloads run with. The zero value of a field means
// its default.
type Config struct {
	// Rows is the size of the row space, R in the paper; default 100,000.
	Rows int64 `json:"rows"`
	// Ops is the number of operations of each read, random-write and YCSB
	// workload; default Rows.
	Ops int64 `json:"ops"`
	// Clients is the number of concurrent clients, N; default 16.
	Clients int `json:"clients"`
	// Value is the size of each value in bytes; default 1000.
	Value int `json:"value"`
	// Batch is the number of rows in one MutateRows call of bulk-write and
	// of the YCSB load; default 100.
	Batch int `json:"batch"`
	// ScanRows is the number of rows one scan of the scan workload reads;
	// default 10,000.
	ScanRows int64 `json:"scan_rows"`
	// MemRows is the row space of the in-memory random read, which the
	// paper shrinks to 100 MB per server; default 100 MB / Value.
	MemRows int64 `json:"mem_rows"`
	// Rounds is how many slices each workload is cut into; with two
	// servers the slices alternate (A B B A ...) so that drift of the
	// machine hits both; default 4.
	Rounds int `json:"rounds"`
	// Workloads are the workloads to run, in order; default all.
	Workloads []string `json:"workloads"`
	// Table is the benchmark table's name; default "tabula-bench". It is
	// created at the start and deleted at the end (unless Keep).
	Table string `json:"table"`
	// Keep leaves the tables in place after the run.
	Keep bool `json:"keep,omitempty"`
	// Seed seeds the workloads' randomness; default 1.
	Seed uint64 `json:"seed"`
	// MaxTime caps the timed part of each workload on each server; the
	// rounds share it. A capped workload reports the operations it did.
	// seq-write and bulk-write, which write the rows later workloads
	// read, are never cut. Default 0: no cap.
	MaxTime time.Duration `json:"max_time_ns,omitempty"`
}

func (c Config) withDefaults() Config {
	if c.Rows == 0 {
		c.Rows = 100_000
	}
	if c.Ops == 0 {
		c.Ops = c.Rows
	}
	if c.Clients == 0 {
		c.Clients = 16
	}
	if c.Value == 0 {
		c.Value = 1000
	}
	if c.Batch == 0 {
		c.Batch = 100
	}
	if c.ScanRows == 0 {
		c.ScanRows = 10_000
	}
	if c.MemRows == 0 {
		c.MemRows = min(c.Rows, 100_000_000/int64(c.Value))
	}
	if c.Rounds == 0 {
		c.Rounds = 4
	}
	if len(c.Workloads) == 0 {
		c.Workloads = workloadNames()
	}
	if c.Table == "" {
		c.Table = "tabula-bench"
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	return c
}

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Rows < 0 || c.Ops < 0 || c.Clients < 0 || c.Value < 0 || c.Batch < 0 || c.ScanRows < 0 || c.MemRows < 0 || c.Rounds < 0 || c.MaxTime < 0 {
		return fmt.Errorf("bench: negative figure in configuration")
	}
	if c.Value > 0 && c.Value < 10 {
		return fmt.Errorf("bench: --value must be at least 10 bytes (YCSB splits it over 10 fields)")
	}
	for _, w := range c.Workloads {
		if lookupWorkload(w) == nil {
			return fmt.Errorf("bench: unknown workload %q (known: %s)", w, strings.Join(workloadNames(), ", "))
		}
	}
	return nil
}
