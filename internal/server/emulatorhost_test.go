package server_test

import (
	"context"
	"testing"

	"cloud.google.com/go/bigtable"

	"github.com/tabuladb/tabula/internal/server"
)

// The README's way in: the official clients reach the server through
// BIGTABLE_EMULATOR_HOST, with no other option.
func TestEmulatorHostVariable(t *testing.T) {
	e := start(t, server.Options{})
	t.Setenv("BIGTABLE_EMULATOR_HOST", e.srv.Addr())
	ctx := context.Background()
	admin, err := bigtable.NewAdminClient(ctx, "my-project", "my-instance")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := admin.CreateTable(ctx, "users"); err != nil {
		t.Fatal(err)
	}
	if err := admin.CreateColumnFamily(ctx, "users", "profile"); err != nil {
		t.Fatal(err)
	}
	client, err := bigtable.NewClient(ctx, "my-project", "my-instance")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	tbl := client.Open("users")
	m := bigtable.NewMutation()
	m.Set("profile", "name", bigtable.Now(), []byte("Alice"))
	if err := tbl.Apply(ctx, "alice", m); err != nil {
		t.Fatal(err)
	}
	row, err := tbl.ReadRow(ctx, "alice")
	if err != nil || len(row["profile"]) != 1 || string(row["profile"][0].Value) != "Alice" {
		t.Fatalf("ReadRow = %v, %v", row, err)
	}
}
