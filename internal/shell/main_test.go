package shell

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestMainUsage(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		out, inErr string // substrings of stdout and stderr
	}{
		{args: nil, code: 2, inErr: "Usage: tabula [flags] VERB"},
		{args: []string{"help"}, code: 0, out: "setgcpolicy"},
		{args: []string{"help", "read"}, code: 0, out: "Usage: tabula read TABLE [start=ROW]"},
		{args: []string{"help", "nosuch"}, code: 2, inErr: `unknown verb "nosuch"`},
		{args: []string{"nosuch"}, code: 2, inErr: `tabula: unknown verb "nosuch"`},
		{args: []string{"-nosuchflag", "ls"}, code: 2, inErr: "flag provided but not defined"},
		{args: []string{"-h"}, code: 0, inErr: "-instance"},
	} {
		var out, errw bytes.Buffer
		code := Main(context.Background(), tc.args, &out, &errw)
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errw.String(), tc.inErr) {
			t.Errorf("Main(%q) = %d\nstdout: %s\nstderr: %s\nwant %d, stdout with %q, stderr with %q",
				tc.args, code, out.String(), errw.String(), tc.code, tc.out, tc.inErr)
		}
	}
}

// TestAddrFromEnvironment checks that $BIGTABLE_EMULATOR_HOST is the
// default address, and that -addr overrides it.
func TestAddrFromEnvironment(t *testing.T) {
	addr := startEmulator(t)
	t.Setenv("BIGTABLE_EMULATOR_HOST", addr)
	var out, errw bytes.Buffer
	if code := Main(context.Background(), []string{"createtable", "t"}, &out, &errw); code != 0 {
		t.Fatalf("createtable via env: exit %d: %s", code, errw.String())
	}
	if r := runMain(t, addr, "ls"); r.stdout != "" {
		t.Errorf("project p: ls = %q; the env table belongs to project tabula", r.stdout)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"ls"}, &out, &errw); code != 0 || out.String() != "t\n" {
		t.Errorf("ls via env: exit %d, stdout %q, stderr %s", code, out.String(), errw.String())
	}
}

// TestUnreachableServer checks that a verb gives up at -timeout with exit 1.
func TestUnreachableServer(t *testing.T) {
	var out, errw bytes.Buffer
	code := Main(context.Background(), []string{"-addr", "127.0.0.1:1", "-timeout", "500ms", "ls"}, &out, &errw)
	if code != 1 || !strings.HasPrefix(errw.String(), "tabula: ls: ") || !strings.Contains(errw.String(), "(server 127.0.0.1:1)") {
		t.Errorf("exit %d, stderr %q; want 1 and a tabula: ls: message naming the server", code, errw.String())
	}
}
