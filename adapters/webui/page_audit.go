package webui

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// plotRows is how many of the latest matching calls the plots cover.
const plotRows = 10_000

// callRow is one query_log row.
type callRow struct {
	ID                                      int64
	TS, Session, Tool, Query, Error, Detail string
	OK                                      bool
	Rows                                    *int64
	DurationMS                              int64
}

// Undoable reports whether the call is one undo takes.
func (c callRow) Undoable() bool { return c.OK && c.Tool == domain.ToolDestructiveQuery }

const callCols = "id, ts, session, tool, coalesce(query, ''), ok, rows, duration_ms, coalesce(error, ''), coalesce(detail, '')"

func scanCall(r []any) callRow {
	c := callRow{ID: asInt(r[0]), TS: asText(r[1]), Session: asText(r[2]), Tool: asText(r[3]), Query: asText(r[4]),
		OK: asInt(r[5]) != 0, DurationMS: asInt(r[7]), Error: baseNames(asText(r[8])), Detail: baseNames(asText(r[9]))}
	if r[6] != nil {
		n := asInt(r[6])
		c.Rows = &n
	}
	return c
}

func (v *view) audit() {
	ctx := v.r.Context()
	f := url.Values{}
	for _, k := range []string{"tool", "failures", "session", "since", "until"} {
		f.Set(k, v.q(k))
	}
	var where []string
	if t := f.Get("tool"); t != "" {
		where = append(where, "tool = "+quoteSQL(t))
	}
	if f.Get("failures") != "" {
		f.Set("failures", "1")
		where = append(where, "ok = 0")
	}
	if s := f.Get("session"); s != "" {
		where = append(where, "session = "+quoteSQL(s))
	}
	where = timeFilter(where, f.Get("since"), f.Get("until"))
	plotWhere := whereSQL(where)
	if b := v.id("before"); b > 0 {
		where = append(where, "id < "+strconv.FormatInt(b, 10))
	}
	var list []callRow
	err := rows(ctx, v.h.d.Audit, "SELECT "+callCols+" FROM query_log"+whereSQL(where)+" ORDER BY id DESC LIMIT "+strconv.Itoa(pageRows+1), func(r []any) {
		list = append(list, scanCall(r))
	})
	d := map[string]any{"F": f, "Err": errString(err), "Tools": toolNames(), "PlotRows": plotRows}
	if len(list) > pageRows {
		list = list[:pageRows]
		n := url.Values{}
		for k := range f {
			n.Set(k, f.Get(k))
		}
		n.Set("before", strconv.FormatInt(list[len(list)-1].ID, 10))
		d["Older"] = link("audit", n)
	}
	if v.id("before") > 0 {
		n := url.Values{}
		for k := range f {
			n.Set(k, f.Get(k))
		}
		d["Newest"] = link("audit", n)
	}
	d["Calls"] = list
	if err == nil {
		var pts []plotPoint
		perr := rows(ctx, v.h.d.Audit, "SELECT ts, tool, ok, coalesce(rows, -1), duration_ms FROM query_log"+plotWhere+" ORDER BY id DESC LIMIT "+strconv.Itoa(plotRows), func(r []any) {
			pts = append(pts, plotPoint{TS: asText(r[0]), Tool: asText(r[1]), OK: asInt(r[2]) != 0, Rows: asInt(r[3]), MS: asInt(r[4])})
		})
		if perr == nil {
			d["PlotTime"], d["PlotLatency"], d["PlotRowsSVG"] = timePlot(pts), latencyPlot(pts), rowsPlot(pts)
			d["Plotted"] = len(pts)
		}
	}
	v.page("audit", "Audit", "audit", d)
}

func (v *view) call() {
	ctx := v.r.Context()
	id := v.id("id")
	var c *callRow
	err := rows(ctx, v.h.d.Audit, "SELECT "+callCols+" FROM query_log WHERE id = "+strconv.FormatInt(id, 10), func(r []any) { x := scanCall(r); c = &x })
	if err != nil {
		v.fail(http.StatusInternalServerError, errText(err))
		return
	}
	if c == nil {
		v.fail(http.StatusNotFound, "no call #"+strconv.FormatInt(id, 10)+" in query_log: see the Audit page for the calls")
		return
	}
	v.page("call", "Call #"+strconv.FormatInt(id, 10), "audit", map[string]any{"C": c, "CanUndo": v.h.d.Undo != nil && !v.readOnly() && c.Undoable()})
}
