// Package shell implements tabula's command-line verbs (ls, createtable,
// read, set, setgcpolicy, lg, split, ...) in the style of Google's cbt tool.
//
// The verbs talk to any server that speaks the Cloud Bigtable gRPC API —
// Tabula, or another implementation such as the official emulator — through
// the official Go client, cloud.google.com/go/bigtable, over an insecure
// connection. The locality-group and tablet verbs (lg, setlg,
// setfamilygroup, tablets, flush, compact, split) use Tabula's admin
// extension (internal/adminpb); against a server without it they fail with
// a message saying so.
//
// cmd/tabula calls Main for every verb except serve and bench.
package shell
