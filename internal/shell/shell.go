package shell

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/bigtable"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tabuladb/tabula/internal/adminpb"
	"github.com/tabuladb/tabula/internal/btconn"
)

// Exit codes returned by Main.
const (
	exitOK    = 0
	exitRPC   = 1 // the server refused or failed a request
	exitUsage = 2 // bad flags or arguments
)

// defaultAddr is used when neither -addr nor $BIGTABLE_EMULATOR_HOST is set.
const defaultAddr = "localhost:8086"

// Main runs one shell verb. args are the command-line arguments after the
// program name: global flags, the verb, and its arguments. It returns the
// process exit code: 0 on success, 1 when a request fails, 2 on a usage
// error.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, g := globalFlags(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	rest := fs.Args()
	if len(rest) == 0 {
		printUsage(stderr, fs)
		return exitUsage
	}
	if rest[0] == "help" {
		return help(rest[1:], stdout, stderr, fs)
	}
	v, ok := verbs[rest[0]]
	if !ok {
		fmt.Fprintf(stderr, "tabula: unknown verb %q\n", rest[0])
		printUsage(stderr, fs)
		return exitUsage
	}
	return runVerb(ctx, v, g, rest[1:], stdout, stderr)
}

// globals are the flags shared by every verb.
type globals struct {
	addr, project, instance string
	timeout                 time.Duration
}

func globalFlags(stderr io.Writer) (*flag.FlagSet, *globals) {
	g := &globals{}
	addr := os.Getenv("BIGTABLE_EMULATOR_HOST")
	if addr == "" {
		addr = defaultAddr
	}
	fs := flag.NewFlagSet("tabula", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&g.addr, "addr", addr, "server `host:port`; $BIGTABLE_EMULATOR_HOST when set")
	fs.StringVar(&g.project, "project", "tabula", "project ID")
	fs.StringVar(&g.instance, "instance", "tabula", "instance ID")
	fs.DurationVar(&g.timeout, "timeout", time.Minute, "deadline for the whole verb")
	fs.Usage = func() { printUsage(stderr, fs) }
	return fs, g
}

func runVerb(ctx context.Context, v *verb, g *globals, args []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	s := &session{globals: g, out: stdout}
	defer s.close()
	err := v.run(ctx, s, args)
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "tabula: %s: %s\n", v.name, ue.msg)
		printVerbUsage(stderr, v)
		return exitUsage
	default:
		msg := describe(err, v.ext)
		if c := code(err); c == codes.Unavailable || c == codes.DeadlineExceeded {
			msg += fmt.Sprintf(" (server %s)", g.addr)
		}
		fmt.Fprintf(stderr, "tabula: %s: %s\n", v.name, msg)
		return exitRPC
	}
}

// usageError is a mistake in a verb's arguments; Main prints the verb's
// usage and exits with 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error {
	return usageError{fmt.Sprintf(format, a...)}
}

// code is err's gRPC code; a context's own deadline counts as DeadlineExceeded.
func code(err error) codes.Code {
	if errors.Is(err, context.DeadlineExceeded) {
		return codes.DeadlineExceeded
	}
	return status.Code(err)
}

// describe renders a failed request as "Code: message". ext says the verb
// uses Tabula's admin extension, which other servers do not implement.
func describe(err error, ext bool) string {
	st, ok := status.FromError(err)
	if !ok {
		return err.Error()
	}
	if ext && st.Code() == codes.Unimplemented && strings.HasPrefix(st.Message(), "unknown service") {
		return "Unimplemented: the server lacks Tabula's admin extension (" + st.Message() + ")"
	}
	return st.Code().String() + ": " + st.Message()
}

// session holds one verb's connection and clients, made on first use.
type session struct {
	*globals
	out   io.Writer
	conn  *grpc.ClientConn
	admin *bigtable.AdminClient
	data  *bigtable.Client
}

func (s *session) dial() (*grpc.ClientConn, error) {
	if s.conn != nil {
		return s.conn, nil
	}
	conn, err := btconn.Dial(s.addr)
	if err != nil {
		return nil, err
	}
	s.conn = conn
	return conn, nil
}

func (s *session) adminClient(ctx context.Context) (*bigtable.AdminClient, error) {
	if s.admin != nil {
		return s.admin, nil
	}
	conn, err := s.dial()
	if err != nil {
		return nil, err
	}
	s.admin, err = btconn.Admin(ctx, conn, s.project, s.instance)
	return s.admin, err
}

func (s *session) dataClient(ctx context.Context) (*bigtable.Client, error) {
	if s.data != nil {
		return s.data, nil
	}
	conn, err := s.dial()
	if err != nil {
		return nil, err
	}
	s.data, err = btconn.Data(ctx, conn, s.project, s.instance)
	return s.data, err
}

func (s *session) tabulaAdmin() (adminpb.TabulaAdminClient, error) {
	conn, err := s.dial()
	if err != nil {
		return nil, err
	}
	return adminpb.NewTabulaAdminClient(conn), nil
}

// tableName is the full Cloud Bigtable name of table.
func (s *session) tableName(table string) string {
	return fmt.Sprintf("projects/%s/instances/%s/tables/%s", s.project, s.instance, table)
}

func (s *session) close() {
	if s.data != nil {
		s.data.Close()
	}
	if s.admin != nil {
		s.admin.Close()
	}
	if s.conn != nil {
		s.conn.Close()
	}
}

func help(args []string, stdout, stderr io.Writer, fs *flag.FlagSet) int {
	if len(args) == 0 {
		fs.SetOutput(stdout)
		printUsage(stdout, fs)
		return exitOK
	}
	v, ok := verbs[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "tabula: help: unknown verb %q\n", args[0])
		return exitUsage
	}
	printVerbUsage(stdout, v)
	return exitOK
}

func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: tabula [flags] VERB [arguments]\n\nVerbs:\n")
	names := make([]string, 0, len(verbs))
	for name := range verbs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-16s %s\n", name, verbs[name].short)
	}
	fmt.Fprintf(w, "\nUse \"tabula help VERB\" for a verb's arguments.\n\nFlags:\n")
	fs.PrintDefaults()
}

func printVerbUsage(w io.Writer, v *verb) {
	fmt.Fprintf(w, "Usage: tabula %s %s\n", v.name, v.synopsis)
	if v.long != "" {
		fmt.Fprintf(w, "\n%s\n", strings.Trim(v.long, "\n"))
	}
}
