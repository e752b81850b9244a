package bench

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

func TestWriteSVG(t *testing.T) {
	res := func(rate float64) Result {
		return Result{Rate: rate, P50: time.Millisecond, P99: 5 * time.Millisecond, P999: 9 * time.Millisecond}
	}
	machine := Machine{CPU: "Test CPU 3000", CPUs: 8}
	config := Config{Rows: 100_000, Clients: 16, Value: 1000}
	tests := []struct {
		name    string
		report  Report
		want    []string
		notWant []string
	}{
		{
			name: "two servers",
			report: Report{
				Machine: machine,
				Config:  config,
				Servers: []Server{{Label: "tabula <&> dev"}, {Label: "emulator"}},
				Workloads: []WorkloadReport{
					{Name: "random-read", Unit: "ops/s", Paper: 1212, Results: []Result{res(24000), res(12000)}},
					{Name: "scan", Unit: "rows/s", Results: []Result{res(987654), {Skipped: "emulator has no <scan>"}}},
					{Name: "odd \"quoted\" 'name'", Unit: "ops/s", Results: []Result{res(0), res(math.NaN())}},
				},
			},
			want: []string{
				"tabula &lt;&amp;&gt; dev",
				"emulator",
				"Bigtable paper (2006), 1 server",
				"2.00×",
				"tabula &lt;&amp;&gt; dev/emulator",
				"skipped",
				"emulator has no &lt;scan&gt;",
				"24,000",
				"987,654",
				"1,212",
				"1k", "10k", "100k", "1M",
				"100,000 rows", "16 clients", "1,000-byte values", "Test CPU 3000, 8 CPUs",
			},
			notWant: []string{"<&>", "<scan>"},
		},
		{
			name: "one server",
			report: Report{
				Config:  config,
				Servers: []Server{{Label: "solo"}},
				Workloads: []WorkloadReport{
					{Name: "seq-write", Unit: "ops/s", Results: []Result{res(5000)}},
					{Name: "seq-read", Unit: "ops/s", Results: []Result{res(50000)}},
				},
			},
			want:    []string{"solo", "5,000", "50,000", "1k", "100k", "tabula bench"},
			notWant: []string{"×", "Bigtable paper", "CPU"},
		},
		{
			name:   "empty",
			report: Report{},
			want:   []string{"tabula bench"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.report.WriteSVG(&b); err != nil {
				t.Fatalf("WriteSVG: %v", err)
			}
			svg := b.String()
			checkXML(t, svg)
			for _, s := range append(tt.notWant, "NaN", "Inf") {
				if strings.Contains(svg, s) {
					t.Errorf("SVG contains %q", s)
				}
			}
			for _, s := range tt.want {
				if !strings.Contains(svg, s) {
					t.Errorf("SVG lacks %q", s)
				}
			}
			if t.Failed() {
				t.Logf("SVG:\n%s", svg)
			}
		})
	}
}

// checkXML fails t unless svg is well-formed XML with an svg root.
func checkXML(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("root element is %q, want svg", root)
	}
}

func TestChartBounds(t *testing.T) {
	wl := func(rates ...float64) []WorkloadReport {
		var rs []Result
		for _, r := range rates {
			rs = append(rs, Result{Rate: r})
		}
		return []WorkloadReport{{Results: rs}}
	}
	tests := []struct {
		name   string
		wls    []WorkloadReport
		lo, hi float64
	}{
		{"none", nil, 3, 6},
		{"typical", wl(1500, 987654), 3, 6},
		{"just above a power", wl(1100, 987654), 2, 6},
		{"exact powers", wl(1000, 1e6), 2, 6},
		{"one value", wl(5000), 3, 4},
		{"zero and NaN ignored", wl(0, math.NaN(), math.Inf(1), 20000), 4, 5},
		{"huge span clamped", wl(1e-30, 1e6), -3, 6},
	}
	for _, tt := range tests {
		lo, hi := chartBounds(tt.wls)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("%s: chartBounds = %v, %v; want %v, %v", tt.name, lo, hi, tt.lo, tt.hi)
		}
	}
}

func TestChartTick(t *testing.T) {
	want := map[int]string{-2: "0.01", 0: "1", 2: "100", 3: "1k", 4: "10k", 5: "100k", 6: "1M", 9: "1G", 20: "1e20"}
	for k, w := range want {
		if got := chartTick(k); got != w {
			t.Errorf("chartTick(%d) = %q, want %q", k, got, w)
		}
	}
}
