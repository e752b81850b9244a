package shell

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/tabuladb/tabula/internal/server"
)

// startTabula runs an in-memory Tabula server and returns its address.
func startTabula(t *testing.T) string {
	t.Helper()
	srv, err := server.Start(server.Options{
		Addr: "127.0.0.1:0", Memory: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("server: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return srv.Addr()
}

// TestScriptsTabula runs the Cloud Bigtable scenarios against Tabula, and
// the admin-extension scenarios in testdata/tabula.
func TestScriptsTabula(t *testing.T) {
	t.Run("api", func(t *testing.T) { runScripts(t, "testdata/*.txt", startTabula, nil) })
	t.Run("ext", func(t *testing.T) { runScripts(t, "testdata/tabula/*.txt", startTabula, nil) })
}

// TestExtensionVerbsOnEmulator checks that the admin-extension verbs fail
// cleanly, with exit code 1, on a server without the extension.
func TestExtensionVerbsOnEmulator(t *testing.T) {
	addr := startEmulator(t)
	if r := runMain(t, addr, "createtable", "t", "families=cf"); r.code != 0 {
		t.Fatalf("createtable: %d %s", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"lg", "t"}, {"setlg", "t", "g", "inmemory=true"}, {"setfamilygroup", "t", "cf", "g"},
		{"tablets", "t"}, {"flush", "t"}, {"compact", "t"}, {"split", "t", "m"},
	} {
		r := runMain(t, addr, args...)
		want := "tabula: " + args[0] + ": Unimplemented: the server lacks Tabula's admin extension"
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", args, r.code, r.stderr, want)
		}
	}
}

// TestTablets checks the tablets listing: one line per tablet, in row
// order, with its range (paper §5.3: a split makes two tablets of one).
func TestTablets(t *testing.T) {
	addr := startTabula(t)
	for _, args := range [][]string{
		{"createtable", "t", "families=cf", "splits=m"},
		{"set", "t", "a", "cf:x=1"},
		{"split", "t", "f"},
	} {
		if r := runMain(t, addr, args...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	r := runMain(t, addr, "tablets", "t")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	want := [][2]string{{"(begin)", `"f"`}, {`"f"`, `"m"`}, {`"m"`, "(end)"}}
	if r.code != 0 || len(lines) != 2+len(want) {
		t.Fatalf("tablets: exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if h := strings.Fields(lines[0]); strings.Join(h, " ") != "Tablet Start End Bytes" {
		t.Errorf("header %q", lines[0])
	}
	for i, w := range want {
		f := strings.Fields(lines[2+i])
		if len(f) != 4 || f[1] != w[0] || f[2] != w[1] {
			t.Errorf("tablet %d: %q, want range %s..%s", i, lines[2+i], w[0], w[1])
		}
	}
}
