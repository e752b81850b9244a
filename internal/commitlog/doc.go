// Package commitlog is the one commit log a tablet server shares among all
// its tablets (Bigtable paper §5.3, §6 "Commit-log implementation").
//
// The log is a directory of numbered segment files. Write enqueues a record
// and gives it its position at once; one background goroutine takes
// everything queued, writes it with one file write, syncs it once and then
// wakes every waiter of that batch (group commit). Replay reads records back
// in position order from any position; Release deletes segments that no
// tablet needs any more. Records are opaque bytes; the tablet layer encodes
// row mutations in them with internal/record.
//
// The on-disk layout is drawn in docs/format/commitlog.md.
package commitlog
