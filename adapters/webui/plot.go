package webui

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// plotPoint is one call as the plots see it (Rows -1: none recorded).
type plotPoint struct {
	TS, Tool string
	OK       bool
	Rows, MS int64
}

// The plots are SVG written here: numbers, and labels escaped with
// html.EscapeString; their colours come from the style sheet (classes),
// so they follow the dark theme and need no inline style.
const (
	plotW, plotH = 640, 200
	padL, padB   = 48, 28
)

// svgOpen starts a plot with its accessible name.
func svgOpen(b *strings.Builder, h int, label string) {
	fmt.Fprintf(b, `<svg class="plot" viewBox="0 0 %d %d" role="img" aria-label="%s"><title>%s</title>`, plotW, h, html.EscapeString(label), html.EscapeString(label))
}

func text(b *strings.Builder, x, y float64, anchor, class, s string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="%s" class="%s">%s</text>`, x, y, anchor, class, html.EscapeString(s))
}

// timePlot is calls and failures per time bucket, oldest left.
func timePlot(pts []plotPoint) template.HTML {
	var ts []time.Time
	for _, p := range pts {
		t, err := time.Parse(domain.TSLayout, p.TS)
		if err != nil {
			t, err = time.Parse(time.RFC3339Nano, p.TS)
		}
		if err == nil {
			ts = append(ts, t)
		} else {
			ts = append(ts, time.Time{})
		}
	}
	var lo, hi time.Time
	for _, t := range ts {
		if t.IsZero() {
			continue
		}
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if t.After(hi) {
			hi = t
		}
	}
	var b strings.Builder
	svgOpen(&b, plotH, "calls and failures over time")
	if lo.IsZero() {
		text(&b, plotW/2, plotH/2, "middle", "axis", "no calls")
		b.WriteString("</svg>")
		return template.HTML(b.String())
	}
	const buckets = 48
	span := hi.Sub(lo)
	if span <= 0 {
		span = time.Second
	}
	calls, fails := make([]int, buckets), make([]int, buckets)
	for i, t := range ts {
		if t.IsZero() {
			continue
		}
		k := int(float64(t.Sub(lo)) / float64(span) * (buckets - 1))
		calls[k]++
		if !pts[i].OK {
			fails[k]++
		}
	}
	top := max(slices.Max(calls), 1)
	iw, ih := float64(plotW-padL-8), float64(plotH-padB-8)
	bw := iw / buckets
	for k := range buckets {
		x := float64(padL) + float64(k)*bw
		hc := ih * float64(calls[k]) / float64(top)
		hf := ih * float64(fails[k]) / float64(top)
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%d calls, %d failed</title></rect>`, x, 8+ih-hc, bw*0.85, hc, calls[k], fails[k])
		if fails[k] > 0 {
			fmt.Fprintf(&b, `<rect class="fail" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, x, 8+ih-hf, bw*0.85, hf)
		}
	}
	fmt.Fprintf(&b, `<line class="axisline" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`, padL, 8+ih, plotW-8, 8+ih)
	text(&b, padL-4, 16, "end", "axis", fmt.Sprint(top))
	text(&b, padL-4, 8+ih, "end", "axis", "0")
	text(&b, padL, plotH-8, "start", "axis", domain.FormatTS(lo)[:16])
	text(&b, plotW-8, plotH-8, "end", "axis", domain.FormatTS(hi)[:16])
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// latencyPlot is each tool's duration distribution on a log scale: a bar
// from the median to the 90th percentile, whiskers to the minimum and the
// maximum, a tick at the 99th percentile.
func latencyPlot(pts []plotPoint) template.HTML {
	by := map[string][]int64{}
	for _, p := range pts {
		by[p.Tool] = append(by[p.Tool], p.MS)
	}
	tools := make([]string, 0, len(by))
	for t := range by {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	row := 26
	h := padB + 8 + row*max(len(tools), 1)
	var b strings.Builder
	svgOpen(&b, h, "latency per tool, milliseconds, log scale")
	const left = 170
	iw := float64(plotW - left - 16)
	var top int64 = 1
	for _, ms := range by {
		top = max(top, slices.Max(ms))
	}
	scale := func(ms int64) float64 {
		return float64(left) + iw*math.Log10(float64(ms)+1)/math.Log10(float64(top)+1)
	}
	for i, t := range tools {
		ms := by[t]
		slices.Sort(ms)
		q := func(p float64) int64 { return ms[int(p*float64(len(ms)-1))] }
		y := float64(8 + i*row)
		text(&b, left-6, y+15, "end", "label", t)
		fmt.Fprintf(&b, `<line class="whisker" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, scale(ms[0]), y+11, scale(ms[len(ms)-1]), y+11)
		x50, x90 := scale(q(0.5)), scale(q(0.9))
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="14"><title>%s: %d calls, median %d ms, p90 %d ms, p99 %d ms, max %d ms</title></rect>`,
			x50, y+4, math.Max(x90-x50, 2), html.EscapeString(t), len(ms), q(0.5), q(0.9), q(0.99), ms[len(ms)-1])
		fmt.Fprintf(&b, `<line class="p99" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, scale(q(0.99)), y+2, scale(q(0.99)), y+20)
	}
	y := float64(h - padB + 4)
	fmt.Fprintf(&b, `<line class="axisline" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`, left, y, plotW-16, y)
	for _, tick := range []int64{0, 1, 10, 100, 1000, 10000, 100000} {
		if tick > top {
			break
		}
		text(&b, scale(tick), y+16, "middle", "axis", fmt.Sprint(tick))
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// rowsBuckets are the rows-returned histogram's bins.
var rowsBuckets = []struct {
	label  string
	lo, hi int64
}{{"0", 0, 0}, {"1", 1, 1}, {"2–10", 2, 10}, {"11–100", 11, 100}, {"101–1k", 101, 1000}, {"1k–10k", 1001, 10000}, {">10k", 10001, math.MaxInt64}}

// rowsPlot is how many calls returned or changed how many rows.
func rowsPlot(pts []plotPoint) template.HTML {
	n := make([]int, len(rowsBuckets))
	for _, p := range pts {
		for i, bk := range rowsBuckets {
			if p.Rows >= bk.lo && p.Rows <= bk.hi {
				n[i]++
			}
		}
	}
	top := max(slices.Max(n), 1)
	var b strings.Builder
	svgOpen(&b, plotH, "calls by rows returned or changed")
	iw, ih := float64(plotW-padL-8), float64(plotH-padB-8)
	bw := iw / float64(len(n))
	for i, c := range n {
		x := float64(padL) + float64(i)*bw
		hc := ih * float64(c) / float64(top)
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s rows: %d calls</title></rect>`, x+4, 8+ih-hc, bw-8, hc, rowsBuckets[i].label, c)
		text(&b, x+bw/2, plotH-8, "middle", "axis", rowsBuckets[i].label)
		text(&b, x+bw/2, 8+ih-hc-3, "middle", "axis", fmt.Sprint(c))
	}
	fmt.Fprintf(&b, `<line class="axisline" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`, padL, 8+ih, plotW-8, 8+ih)
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// toolNames are the names the audit filter offers.
func toolNames() []string {
	var names []string
	for _, t := range domain.Tools() {
		names = append(names, t.Name)
	}
	return append(names, domain.UndoTool)
}
