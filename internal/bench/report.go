package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the outcome of one invocation: every workload on every server.
type Report struct {
	// Machine describes where the benchmark ran.
	Machine Machine `json:"machine"`
	// Command is the command line that produced the report.
	Command string `json:"command"`
	// Config is the configuration the workloads ran with.
	Config Config `json:"config"`
	// Servers are the servers measured, A first.
	Servers []Server `json:"servers"`
	// Workloads hold one result per server, in the order of Servers.
	Workloads []WorkloadReport `json:"workloads"`
}

// Machine describes the machine the client ran on.
type Machine struct {
	CPU        string `json:"cpu"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	MemBytes   int64  `json:"mem_bytes"`
	OS         string `json:"os"`
	Go         string `json:"go"`
	Start      string `json:"start"`
}

// Server is one measured server.
type Server struct {
	// Label names the server in tables and the chart.
	Label string `json:"label"`
	Addr  string `json:"addr"`
	// Tabula says whether the server answered Tabula's admin extension.
	Tabula bool `json:"tabula"`
	// PID is the server's process id, when given; the RSS figures come
	// from /proc/PID/status.
	PID int `json:"pid,omitempty"`
	// RSSBytes is the server's resident set when the last workload ended;
	// PeakRSSBytes its high-water mark (VmHWM). Zero when unknown.
	RSSBytes     int64 `json:"rss_bytes,omitempty"`
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
}

// WorkloadReport is one workload's results.
type WorkloadReport struct {
	// Name is the workload's flag name (seq-write, ycsb-a, ...).
	Name string `json:"name"`
	// Unit is what Rate counts per second: "ops/s" or "rows/s".
	Unit string `json:"unit"`
	// Paper is the Bigtable paper's single-tablet-server figure for the
	// workload (Table 6, 1 server), 0 when the paper has none.
	Paper float64 `json:"paper,omitempty"`
	// Results has one entry per server, in the order of Report.Servers.
	Results []Result `json:"results"`
}

// Ratio is the first server's rate over the second's; 0 when there is no
// second server or either did not run.
func (w WorkloadReport) Ratio() float64 {
	if len(w.Results) < 2 || w.Results[0].Skipped != "" || w.Results[1].Skipped != "" || w.Results[1].Rate == 0 {
		return 0
	}
	return w.Results[0].Rate / w.Results[1].Rate
}

// Result is one workload on one server.
type Result struct {
	// Rate is operations (or rows, for scans and bulk writes) per second.
	Rate float64 `json:"rate"`
	// Ops is the number of timed operations; Rows the rows they touched.
	Ops  int64 `json:"ops"`
	Rows int64 `json:"rows"`
	// Seconds is the time the timed operations took, summed over rounds.
	Seconds float64 `json:"seconds"`
	// P50, P99 and P999 are operation latencies.
	P50  time.Duration `json:"p50_ns"`
	P99  time.Duration `json:"p99_ns"`
	P999 time.Duration `json:"p999_ns"`
	// Errors counts failed operations (they are not in Rate).
	Errors int64 `json:"errors"`
	// Error is the first error an operation met.
	Error string `json:"error,omitempty"`
	// Skipped, when not empty, says why the workload did not run.
	Skipped string `json:"skipped,omitempty"`
	// Capped says the time cap (Config.MaxTime) stopped the workload
	// before the Planned operations were done.
	Capped  bool  `json:"capped,omitempty"`
	Planned int64 `json:"planned"`
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes the report as an aligned text table.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "workload\t")
	for _, s := range r.Servers {
		fmt.Fprintf(tw, "%s\tp50\tp99\tp999\t", s.Label)
	}
	if len(r.Servers) == 2 {
		fmt.Fprintf(tw, "%s/%s\t", r.Servers[0].Label, r.Servers[1].Label)
	}
	fmt.Fprint(tw, "paper\t\n")
	for _, wl := range r.Workloads {
		fmt.Fprintf(tw, "%s (%s)\t", wl.Name, wl.Unit)
		for _, res := range wl.Results {
			if res.Skipped != "" {
				fmt.Fprint(tw, "skipped\t-\t-\t-\t")
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t", rate(res.Rate), latency(res.P50), latency(res.P99), latency(res.P999))
		}
		if len(r.Servers) == 2 {
			if ratio := wl.Ratio(); ratio > 0 {
				fmt.Fprintf(tw, "%.2f\t", ratio)
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		if wl.Paper > 0 {
			fmt.Fprintf(tw, "%s\t\n", rate(wl.Paper))
		} else {
			fmt.Fprint(tw, "\t\n")
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return r.writeNotes(w)
}

// writeNotes lists skips, errors and memory under the table.
func (r *Report) writeNotes(w io.Writer) error {
	var notes []string
	for _, wl := range r.Workloads {
		for i, res := range wl.Results {
			if res.Skipped != "" {
				notes = append(notes, fmt.Sprintf("%s on %s skipped: %s", wl.Name, r.Servers[i].Label, res.Skipped))
			}
			if res.Capped {
				notes = append(notes, fmt.Sprintf("%s on %s: stopped by --max-time after %d of %d operations", wl.Name, r.Servers[i].Label, res.Ops+res.Errors, res.Planned))
			}
			if res.Errors > 0 {
				notes = append(notes, fmt.Sprintf("%s on %s: %d operations failed; the first: %s", wl.Name, r.Servers[i].Label, res.Errors, res.Error))
			}
		}
	}
	for _, s := range r.Servers {
		if s.PeakRSSBytes > 0 {
			notes = append(notes, fmt.Sprintf("%s RSS: %s at the end, %s peak", s.Label, mib(s.RSSBytes), mib(s.PeakRSSBytes)))
		}
	}
	if len(notes) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	return err
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// rate formats a per-second figure with thousands separators.
func rate(v float64) string {
	n := int64(v + 0.5)
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// latency formats a duration in milliseconds with three significant
// figures or so.
func latency(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0fms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1fms", ms)
	default:
		return fmt.Sprintf("%.2fms", ms)
	}
}
