package tablet

import (
	"fmt"
	"testing"
	"time"

	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/vfs"
)

// Paper §5.4: minor compactions shrink the tablet server's memory. Writes
// spread over many tablets, each far below its own memtable size, still
// get flushed once the memtables together pass the host's budget.
func TestMemtableBudget(t *testing.T) {
	const budget = 1 << 20
	h, err := Open(Options{FS: vfs.NewMem(), Dir: "db", MemtableSize: 4 << 20, MemtableBudget: budget, SplitSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var splits [][]byte
	for i := 1; i < 16; i++ {
		splits = append(splits, fmt.Appendf(nil, "r%02d", i))
	}
	if err := h.CreateTable("t", &Schema{Families: map[string]Family{"f": {}}}, splits); err != nil {
		t.Fatal(err)
	}
	value := make([]byte, 1000)
	for i := range 8000 { // 8 MB over 16 tablets: 512 KB each
		row := fmt.Appendf(nil, "r%02d-%05d", i%16, i)
		if err := h.Apply("t", row, []base.Mutation{{Kind: base.KindPut, Family: "f", Timestamp: 1000, Value: value}}); err != nil {
			t.Fatal(err)
		}
	}
	var total int64
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		total = 0
		for _, tb := range h.allTablets() {
			total += tb.memtableBytes()
		}
		if total <= budget {
			break
		}
	}
	if total > budget {
		t.Fatalf("memtables hold %d bytes, over the budget of %d", total, budget)
	}
	for i := 0; i < 8000; i += 997 {
		row := fmt.Appendf(nil, "r%02d-%05d", i%16, i)
		if r, err := h.ReadRow("t", row); err != nil || len(r.Cells) != 1 {
			t.Fatalf("row %s after budget flushes: %v, %v", row, r, err)
		}
	}
}
