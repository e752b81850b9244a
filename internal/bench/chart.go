package bench

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Chart geometry, in pixels. Text is 12px sans-serif, whose characters are
// taken to be at most chartCharW wide on average (bold DejaVu Sans is about
// that): enough to size the columns.
const (
	chartPad        = 16
	chartCharW      = 8
	chartBarH       = 16
	chartBarStep    = 22
	chartGroupGap   = 14
	chartPlotW      = 560
	chartValueW     = 84
	chartLegendH    = 20
	chartMaxDecades = 9

	chartPaperLabel = "Bigtable paper (2006), 1 server"
	chartHatch      = "url(#paper-hatch)"
	chartDefs       = `<defs><pattern id="paper-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
		`<rect width="6" height="6" fill="#d4d4d4"/><line x1="0" y1="0" x2="0" y2="6" stroke="#888" stroke-width="2"/></pattern></defs>` + "\n"
)

// chart lays out and draws the SVG form of a Report.
type chart struct {
	r      *Report
	b      strings.Builder
	title  string
	lo, hi float64 // axis bounds, as powers of ten
	plotX  int     // left edge of the plot, where the bars start
	ratioX int     // left edge of the ratio column; 0 without one
	top    int     // top of the first group
	bottom int     // bottom of the last group
	width  int
	height int
	legend []chartLegendItem
}

// chartLegendItem is one swatch and label of the legend.
type chartLegendItem struct {
	label, fill string
	x, y        int
}

// WriteSVG writes the report as a self-contained SVG image: a horizontal
// bar chart with one group per workload and, in each group, one bar per
// server plus a hatched one for the Bigtable paper's figure where it has
// one. The rate axis is logarithmic. With two servers the ratio of the
// first's rate to the second's is printed at the right of each group.
func (r *Report) WriteSVG(w io.Writer) error {
	c := newChart(r)
	c.open()
	c.drawLegend()
	c.drawGrid()
	y := c.top
	for _, wl := range r.Workloads {
		y = c.drawGroup(wl, y)
	}
	c.b.WriteString("</svg>\n")
	_, err := io.WriteString(w, c.b.String())
	return err
}

// newChart lays the chart out.
func newChart(r *Report) *chart {
	c := &chart{r: r, title: chartTitle(r)}
	c.lo, c.hi = chartBounds(r.Workloads)
	c.plotX = chartPad + chartLabelWidth(r.Workloads) + 10
	c.width = c.plotX + chartPlotW + chartValueW
	if len(r.Servers) == 2 {
		c.ratioX = c.width
		c.width += max(chartTextW(c.ratioHeading()), 6*chartCharW)
	}
	c.width = max(c.width+chartPad, chartTextW(c.title)*15/12+2*chartPad)
	c.layoutLegend()
	c.bottom = c.top + chartBarStep
	if len(r.Workloads) > 0 {
		c.bottom = c.top + chartGroupsHeight(r.Workloads) - chartGroupGap
	}
	c.height = c.bottom + 52
	return c
}

// layoutLegend places the legend's items in rows under the title and sets
// the top of the plot under them.
func (c *chart) layoutLegend() {
	x, y := chartPad, 44
	for _, it := range c.legendItems() {
		w := 20 + chartTextW(it.label) + 18
		if x > chartPad && x+w > c.width-chartPad {
			x, y = chartPad, y+chartLegendH
		}
		it.x, it.y = x, y
		c.legend = append(c.legend, it)
		x += w
	}
	c.top = y + 36
}

// legendItems are the servers and, when any workload has one, the paper.
func (c *chart) legendItems() []chartLegendItem {
	var items []chartLegendItem
	for i := range c.r.Servers {
		items = append(items, chartLegendItem{label: c.serverLabel(i), fill: chartColour(i)})
	}
	for _, wl := range c.r.Workloads {
		if wl.Paper > 0 {
			return append(items, chartLegendItem{label: chartPaperLabel, fill: chartHatch})
		}
	}
	return items
}

// open writes the SVG element, the pattern for the paper's bars, the
// background and the title.
func (c *chart) open() {
	fmt.Fprintf(&c.b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"+
		`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %[1]d %[2]d" font-family="sans-serif" font-size="12" fill="#222">`+"\n",
		c.width, c.height)
	fmt.Fprintf(&c.b, "<title>%s</title>\n%s", chartEsc(c.title), chartDefs)
	c.b.WriteString(`<rect width="100%" height="100%" fill="#fff"/>` + "\n")
	fmt.Fprintf(&c.b, `<text x="%d" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", chartPad, chartEsc(c.title))
}

// drawLegend writes the legend laid out by layoutLegend.
func (c *chart) drawLegend() {
	for _, it := range c.legend {
		fmt.Fprintf(&c.b, `<rect x="%d" y="%d" width="14" height="14" fill="%s"/>`, it.x, it.y-11, it.fill)
		fmt.Fprintf(&c.b, `<text x="%d" y="%d">%s</text>`+"\n", it.x+20, it.y, chartEsc(it.label))
	}
}

// drawGrid writes a gridline at each power of ten, labelled under the
// plot, fainter ones between them, and the column headings.
func (c *chart) drawGrid() {
	for k := c.lo; k <= c.hi; k++ {
		x := c.x(math.Pow(10, k))
		fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#bbb"/>`, x, c.top-4, x, c.bottom+4)
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", x, c.bottom+18, chartTick(int(k)))
		if k < c.hi {
			c.drawMinorGrid(k)
		}
	}
	fmt.Fprintf(&c.b, `<text x="%d" y="%d" text-anchor="middle" fill="#555">per second (log scale)</text>`+"\n", c.plotX+chartPlotW/2, c.bottom+36)
	if c.ratioX > 0 {
		fmt.Fprintf(&c.b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", c.ratioX, c.top-10, chartEsc(c.ratioHeading()))
	}
}

// drawMinorGrid writes faint gridlines at 2..9 times 10^k.
func (c *chart) drawMinorGrid(k float64) {
	for m := 2.0; m < 10; m++ {
		x := c.x(m * math.Pow(10, k))
		fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>`, x, c.top-4, x, c.bottom+4)
	}
	c.b.WriteByte('\n')
}

// drawGroup writes one workload's label, bars and ratio with its top at y,
// and returns the top of the next group.
func (c *chart) drawGroup(wl WorkloadReport, y int) int {
	h := chartGroupHeight(wl)
	mid := y + h/2
	fmt.Fprintf(&c.b, `<text x="%d" y="%d" text-anchor="end" font-weight="bold">%s</text>`+"\n", c.plotX-10, mid-1, chartEsc(wl.Name))
	fmt.Fprintf(&c.b, `<text x="%d" y="%d" text-anchor="end" font-size="11" fill="#666">%s</text>`+"\n", c.plotX-10, mid+12, chartEsc(wl.Unit))
	for i, res := range wl.Results {
		c.drawResult(i, res, wl.Unit, y+i*chartBarStep)
	}
	if wl.Paper > 0 {
		tip := fmt.Sprintf("%s: %s %s", chartPaperLabel, chartValue(wl.Paper), wl.Unit)
		c.drawBar(y+len(wl.Results)*chartBarStep, chartHatch, wl.Paper, tip)
	}
	c.drawRatio(wl, mid)
	return y + h + chartGroupGap
}

// drawResult writes server i's bar, or says that it skipped the workload.
func (c *chart) drawResult(i int, res Result, unit string, y int) {
	if res.Skipped == "" {
		c.drawBar(y, chartColour(i), res.Rate, c.resultTip(i, res, unit))
		return
	}
	tip := fmt.Sprintf("%s skipped: %s", c.serverLabel(i), res.Skipped)
	fmt.Fprintf(&c.b, `<text x="%d" y="%d" font-style="italic" fill="#888">skipped<title>%s</title></text>`+"\n",
		c.plotX+4, y+chartBarStep/2+4, chartEsc(tip))
}

// drawBar writes a bar for rate v in the row with its top at y, and the
// value at its end. A rate that cannot be drawn gets only the value.
func (c *chart) drawBar(y int, fill string, v float64, tip string) {
	base := y + (chartBarStep+chartBarH)/2 - 4
	end := float64(c.plotX)
	if v > 0 && !math.IsInf(v, 0) {
		end = c.x(v)
		fmt.Fprintf(&c.b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`,
			c.plotX, y+(chartBarStep-chartBarH)/2, max(end-float64(c.plotX), 1), chartBarH, fill, chartEsc(tip))
	}
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%d">%s</text>`+"\n", end+4, base, chartValue(v))
}

// drawRatio writes the first server's rate over the second's at the right
// of a group, centred on mid.
func (c *chart) drawRatio(wl WorkloadReport, mid int) {
	if c.ratioX == 0 {
		return
	}
	text := "–"
	if q := wl.Ratio(); q > 0 && !math.IsInf(q, 0) {
		text = fmt.Sprintf("%.2f×", q)
	}
	fmt.Fprintf(&c.b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", c.ratioX, mid+4, text)
}

// resultTip is the tooltip of a server's bar: rate and latencies.
func (c *chart) resultTip(i int, res Result, unit string) string {
	tip := fmt.Sprintf("%s: %s %s", c.serverLabel(i), chartValue(res.Rate), unit)
	if res.P50 > 0 {
		tip += fmt.Sprintf(", p50 %s, p99 %s, p99.9 %s", latency(res.P50), latency(res.P99), latency(res.P999))
	}
	if res.Errors > 0 {
		tip += fmt.Sprintf(", %d errors", res.Errors)
	}
	return tip
}

// ratioHeading heads the ratio column: "A/B".
func (c *chart) ratioHeading() string {
	return c.serverLabel(0) + "/" + c.serverLabel(1)
}

// serverLabel names server i: its label, else its address, else its number.
func (c *chart) serverLabel(i int) string {
	if i < len(c.r.Servers) {
		if s := c.r.Servers[i]; s.Label != "" {
			return s.Label
		} else if s.Addr != "" {
			return s.Addr
		}
	}
	return fmt.Sprintf("server %d", i+1)
}

// x maps rate v to its horizontal position, clamped to the plot.
func (c *chart) x(v float64) float64 {
	f := (math.Log10(v) - c.lo) / (c.hi - c.lo)
	f = min(max(f, 0), 1)
	return float64(c.plotX) + f*chartPlotW
}

// chartBounds returns the powers of ten that bracket the workloads' rates
// and paper figures, as exponents. The smallest rate lies at least a tenth
// of a decade above the lower bound so that its bar shows. Without rates
// it returns 1k..1M.
func chartBounds(wls []WorkloadReport) (lo, hi float64) {
	least, most := math.Inf(1), math.Inf(-1)
	for _, v := range chartRates(wls) {
		least, most = min(least, v), max(most, v)
	}
	if math.IsInf(least, 0) {
		return 3, 6
	}
	lo = math.Floor(math.Log10(least) - 0.1)
	hi = math.Ceil(math.Log10(most) - 1e-9)
	hi = max(hi, lo+1)
	return max(lo, hi-chartMaxDecades), hi
}

// chartRates lists the drawable rates: positive and finite.
func chartRates(wls []WorkloadReport) []float64 {
	var rates []float64
	for _, wl := range wls {
		for _, res := range wl.Results {
			if res.Skipped == "" {
				rates = append(rates, res.Rate)
			}
		}
		rates = append(rates, wl.Paper)
	}
	return slices.DeleteFunc(rates, func(v float64) bool { return !(v > 0) || math.IsInf(v, 0) })
}

// chartGroupHeight is the height of a workload's bars: one row per
// result and one for the paper's figure, at least one row.
func chartGroupHeight(wl WorkloadReport) int {
	n := len(wl.Results)
	if wl.Paper > 0 {
		n++
	}
	return max(n, 1) * chartBarStep
}

// chartGroupsHeight is the height of all groups, each followed by a gap.
func chartGroupsHeight(wls []WorkloadReport) int {
	h := 0
	for _, wl := range wls {
		h += chartGroupHeight(wl) + chartGroupGap
	}
	return h
}

// chartLabelWidth is the width of the column of workload names and units.
func chartLabelWidth(wls []WorkloadReport) int {
	w := 10 * chartCharW
	for _, wl := range wls {
		w = max(w, chartTextW(wl.Name), chartTextW(wl.Unit))
	}
	return w
}

// chartTitle is the title line: the configuration and the machine.
func chartTitle(r *Report) string {
	cfg := r.Config.withDefaults()
	parts := []string{
		"tabula bench",
		chartCount(cfg.Rows, "row"),
		chartCount(int64(cfg.Clients), "client"),
		rate(float64(cfg.Value)) + "-byte values",
	}
	if m := r.Machine; m.CPU != "" || m.CPUs > 0 {
		parts = append(parts, chartCPU(m))
	}
	return strings.Join(parts, " · ")
}

// chartCPU describes the machine's processor.
func chartCPU(m Machine) string {
	switch {
	case m.CPUs <= 0:
		return m.CPU
	case m.CPU == "":
		return chartCount(int64(m.CPUs), "CPU")
	}
	return fmt.Sprintf("%s, %s", m.CPU, chartCount(int64(m.CPUs), "CPU"))
}

// chartCount formats n things: "1 client", "16 clients", "100,000 rows".
func chartCount(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return rate(float64(n)) + " " + thing + "s"
}

// chartValue formats a rate for the chart; "n/a" when it is not a number
// or out of range.
func chartValue(v float64) string {
	if !(v >= 0) || v > math.MaxInt64/2 {
		return "n/a"
	}
	return rate(v)
}

// chartTick labels the gridline at 10^k: "1k", "10k", "100k", "1M".
func chartTick(k int) string {
	switch {
	case k >= 0 && k < 15:
		return "1" + strings.Repeat("0", k%3) + strings.TrimSpace(" kMGT"[k/3:k/3+1])
	case k < 0 && k >= -3:
		return fmt.Sprintf("%.*f", -k, math.Pow(10, float64(k)))
	}
	return fmt.Sprintf("1e%d", k)
}

// chartColour is the colour of server i's bars.
func chartColour(i int) string {
	palette := [...]string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f"}
	return palette[i%len(palette)]
}

// chartTextW estimates the width of s in 12px sans-serif.
func chartTextW(s string) int {
	return utf8.RuneCountInString(s) * chartCharW
}

// chartEsc escapes s for use as XML character data or attribute value.
func chartEsc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
