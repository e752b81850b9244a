package shell

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"cloud.google.com/go/bigtable/bttest"
)

// startEmulator runs Google's in-process Bigtable emulator and returns its
// address.
func startEmulator(t *testing.T) string {
	t.Helper()
	srv, err := bttest.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatalf("bttest: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv.Addr
}

// result is what one Main call wrote and returned.
type result struct {
	stdout, stderr string
	code           int
}

func runMain(t *testing.T, addr string, args ...string) result {
	t.Helper()
	var out, errw bytes.Buffer
	full := append([]string{"-addr", addr, "-project", "p", "-instance", "i"}, args...)
	code := Main(context.Background(), full, &out, &errw)
	return result{out.String(), errw.String(), code}
}

// TestScripts runs each testdata/*.txt scenario against a fresh emulator.
func TestScripts(t *testing.T) {
	runScripts(t, "testdata/*.txt", startEmulator, nil)
}

// runScripts runs each scenario matching glob against a fresh server made
// by start, skipping those named in skip (scenario -> reason).
//
// A scenario is a list of commands, each a line "> VERB ARGS..." (double
// quotes group words), followed by the exact stdout expected and optionally
// "[exit N]" (default 0) and "[stderr] TEXT" lines; TEXT must occur in
// stderr. A blank line ends the expectations; what follows it up to the
// next command is a comment.
func runScripts(t *testing.T, glob string, start func(*testing.T) string, skip map[string]string) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) {
			if why, ok := skip[name]; ok {
				t.Skip(why)
			}
			addr := start(t)
			for _, c := range readScript(t, f) {
				c.check(t, runMain(t, addr, c.args...))
			}
		})
	}
}

type scriptCmd struct {
	line   int
	args   []string
	stdout string
	code   int
	stderr []string
}

func (c scriptCmd) check(t *testing.T, r result) {
	t.Helper()
	where := fmt.Sprintf("line %d: %s", c.line, strings.Join(c.args, " "))
	if r.code != c.code {
		t.Errorf("%s: exit %d, want %d; stderr:\n%s", where, r.code, c.code, r.stderr)
	}
	if r.stdout != c.stdout {
		t.Errorf("%s: stdout:\n%s\nwant:\n%s", where, r.stdout, c.stdout)
	}
	for _, s := range c.stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("%s: stderr %q lacks %q", where, r.stderr, s)
		}
	}
}

func readScript(t *testing.T, path string) []scriptCmd {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []scriptCmd
	open := false // lines are the last command's expectations
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cmd, ok := strings.CutPrefix(line, "> "); ok {
			cmds = append(cmds, scriptCmd{line: n, args: splitWords(cmd)})
			open = true
			continue
		}
		if line == "" {
			open = false
		}
		if open {
			addExpect(t, &cmds[len(cmds)-1], line)
		}
	}
	return cmds
}

func addExpect(t *testing.T, c *scriptCmd, line string) {
	if s, ok := strings.CutPrefix(line, "[exit "); ok {
		n, err := strconv.Atoi(strings.TrimSuffix(s, "]"))
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		c.code = n
		return
	}
	if s, ok := strings.CutPrefix(line, "[stderr] "); ok {
		c.stderr = append(c.stderr, s)
		return
	}
	c.stdout += line + "\n"
}

// splitWords splits a command line at spaces; double quotes group words.
func splitWords(s string) []string {
	var words []string
	var cur strings.Builder
	inQuote, inWord := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote, inWord = !inQuote, true
		case r == ' ' && !inQuote:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
