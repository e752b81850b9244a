package btconn

import (
	"context"
	"testing"

	"cloud.google.com/go/bigtable"
	"cloud.google.com/go/bigtable/bttest"
)

// The clients Dial, Data and Admin make reach a plaintext server.
func TestClients(t *testing.T) {
	srv, err := bttest.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	conn, err := Dial(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	admin, err := Admin(ctx, conn, "p", "i")
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.CreateTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := admin.CreateColumnFamily(ctx, "t", "f"); err != nil {
		t.Fatal(err)
	}
	data, err := Data(ctx, conn, "p", "i")
	if err != nil {
		t.Fatal(err)
	}
	mut := bigtable.NewMutation()
	mut.Set("f", "c", 1000, []byte("v"))
	if err := data.Open("t").Apply(ctx, "r", mut); err != nil {
		t.Fatal(err)
	}
	row, err := data.Open("t").ReadRow(ctx, "r")
	if err != nil || len(row["f"]) != 1 || string(row["f"][0].Value) != "v" {
		t.Fatalf("ReadRow = %v, %v", row, err)
	}
}
