package webui

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// serverObjects are the server's own tables and view, which the Memory and
// Audit pages show; the Tables page lists the user's.
var serverObjects = []string{"memory_events", "memory_checkpoints", "query_log", "query_errors"}

// tableRow is one user table or view.
type tableRow struct {
	Name, Type, SQL, Description string
}

// userTables lists the user's tables and views from sqlite_schema.
func (v *view) userTables() ([]tableRow, error) {
	var list []tableRow
	err := rows(v.r.Context(), v.h.d.DB, "SELECT name, type, coalesce(sql, '') FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name", func(r []any) {
		name := asText(r[0])
		if slices.Contains(serverObjects, name) {
			return
		}
		t := tableRow{Name: name, Type: asText(r[1]), SQL: asText(r[2])}
		for _, line := range strings.Split(t.SQL, "\n") {
			if d, ok := strings.CutPrefix(strings.TrimSpace(line), "-- description:"); ok {
				t.Description = strings.TrimSpace(d)
				break
			}
		}
		list = append(list, t)
	})
	return list, err
}

func (v *view) tables() {
	list, err := v.userTables()
	v.page("tables", "Tables", "tables", map[string]any{"Tables": list, "Err": errString(err)})
}

// tableRows pages one table's rows through the read_query tool: the same
// policy, caps and audit row as the agent's read.
func (v *view) tableRows() {
	list, err := v.userTables()
	if err != nil {
		v.fail(http.StatusInternalServerError, errText(err))
		return
	}
	name := v.q("name")
	i := slices.IndexFunc(list, func(t tableRow) bool { return t.Name == name })
	if i < 0 {
		v.fail(http.StatusNotFound, "no user table or view by that name: see the Tables page")
		return
	}
	t := list[i]
	offset := int(v.id("offset"))
	limit := min(pageRows, v.h.d.Limits.MaxRows)
	if err := domain.ArgOffset.Check(v.h.d.Limits, offset); err != nil {
		v.fail(http.StatusBadRequest, errText(err))
		return
	}
	res, err := v.h.d.Tools.ReadQuery(v.r.Context(), domain.ReadQueryRequest{Query: "SELECT * FROM " + quoteIdent(t.Name), Limit: limit, Offset: offset})
	text, data := res.Text, res.Table
	d := map[string]any{"T": t, "Err": errString(err), "Offset": offset}
	if err == nil && data != nil {
		d["Columns"], d["Rows"] = data.Columns, cells(data.Rows)
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		if last := lines[len(lines)-1]; strings.HasPrefix(last, "#") {
			d["Trailer"] = last
		}
		if len(data.Rows) == limit {
			d["Next"] = link("tables/rows", url.Values{"name": {t.Name}, "offset": {strconv.Itoa(offset + limit)}})
		}
		if offset > 0 {
			d["Prev"] = link("tables/rows", url.Values{"name": {t.Name}, "offset": {strconv.Itoa(max(offset-limit, 0))}})
		}
	}
	v.page("rows", t.Name, "tables", d)
}

// quoteIdent is name as an SQL identifier.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// cell is one value as a page shows it; Null marks SQL NULL.
type cell struct {
	Text string
	Null bool
}

func cells(rows [][]any) [][]cell {
	out := make([][]cell, len(rows))
	for i, r := range rows {
		out[i] = make([]cell, len(r))
		for j, x := range r {
			if x == nil {
				out[i][j] = cell{Null: true}
			} else {
				out[i][j] = cell{Text: asText(x)}
			}
		}
	}
	return out
}
