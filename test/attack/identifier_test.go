package attack_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Identifier and fragment tricks in the arguments of describe_table,
// search_text and create_view: each call either works as documented or is
// refused, and nothing else changes.

// toolCall is one call and what it must answer.
type toolCall struct {
	name string
	args map[string]any
	// ok is whether the call must succeed; errorHas is text the error must
	// contain (the argument or tool to use), okHas text the result must.
	ok       bool
	errorHas string
	okHas    string
	// view, when set, is the one view the call may create.
	view string
	// either accepts success or failure (the spec leaves the choice open).
	either bool
}

func describeCalls() []toolCall {
	d := func(table string, ok bool, has string) toolCall {
		c := toolCall{name: "describe_table", args: map[string]any{"table": table}, ok: ok}
		if ok {
			c.okHas = has
		} else {
			c.errorHas = has
		}
		return c
	}
	return []toolCall{
		d("notes; DROP TABLE notes", false, "list_tables"),
		d(`notes"; DROP TABLE notes; --`, false, "list_tables"),
		d("notes' OR '1'='1", false, "list_tables"),
		d("x') UNION SELECT sql FROM sqlite_master --", false, "list_tables"),
		d(`"notes"`, false, "list_tables"),
		d("[notes]", false, "list_tables"),
		d("main.notes", false, "list_tables"),
		d("%", false, "list_tables"),
		d("_otes", false, "list_tables"),
		d("notes\x00evil", false, "list_tables"),
		d("sqlite_master", false, "list_tables"),
		d("", false, "table"),
		d("NOTES", true, "# columns"),
		d(`odd "quoted" name`, true, "b c"),
		d("query_log", true, "duration_ms"),
		d("v_notes", true, "# columns"),
	}
}

func searchCalls() []toolCall {
	s := func(args map[string]any, ok bool, has string) toolCall {
		args["pattern"] = "a"
		if _, set := args["table"]; !set {
			args["table"] = "notes"
		}
		c := toolCall{name: "search_text", args: args, ok: ok}
		if ok {
			c.okHas = has
		} else {
			c.errorHas = has
		}
		return c
	}
	return []toolCall{
		s(map[string]any{"table": `notes"; DROP TABLE notes; --`}, false, "list_tables"),
		s(map[string]any{"table": "notes WHERE 1; DELETE FROM notes"}, false, "list_tables"),
		s(map[string]any{"table": `odd "quoted" name`, "columns": []string{"b c"}}, true, "matching values"),
		s(map[string]any{"columns": []string{`title" FROM notes; DROP TABLE notes; --`}}, false, "available"),
		s(map[string]any{"columns": []string{"TITLE"}}, true, "matching values"),
		s(map[string]any{"key_column": `id" FROM notes; --`}, false, "available"),
		s(map[string]any{"where": "1); DELETE FROM notes; --"}, false, "one statement"),
		s(map[string]any{"where": "1) OR load_extension('evil') OR (1"}, false, "load_extension"),
		s(map[string]any{"where": "title = 'alpha'); PRAGMA query_only = 0; --"}, false, "one statement"),
		s(map[string]any{"where": "1); ATTACH '/tmp/evil.db' AS evil; --"}, false, "one statement"),
		s(map[string]any{"where": "id = ?"}, false, "parameter"),
		s(map[string]any{"where": "1 /*"}, false, "SQLite error"),
		s(map[string]any{"where": "id IN (DELETE FROM notes RETURNING id)"}, false, "SQLite error"),
		// The server closes the WHERE on a line of its own, so "--" cannot
		// hide it; an unterminated comment hides it and the LIMIT, and the cap
		// still holds while stepping.
		s(map[string]any{"where": "1) UNION SELECT id, content, kind FROM memory_events --"}, false, "SQLite error"),
		s(map[string]any{"where": "1) UNION SELECT id, content, kind FROM memory_events WHERE (1"}, true, "matching values"),
		s(map[string]any{"where": "0) UNION ALL SELECT x, x, x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c) /*"}, true, "candidate cap"),
	}
}

func createViewCalls() []toolCall {
	v := func(name, body string, ok bool, has string) toolCall {
		c := toolCall{name: "create_view", args: map[string]any{"name": name, "select_sql": body}, ok: ok}
		if ok {
			c.okHas, c.view = has, strings.TrimSpace(name)
		} else {
			c.errorHas = has
		}
		return c
	}
	either := func(c toolCall, view string) toolCall { c.either, c.view = true, view; return c }
	withArgs := func(c toolCall, kv ...any) toolCall {
		for i := 0; i+1 < len(kv); i += 2 {
			c.args[kv[i].(string)] = kv[i+1]
		}
		return c
	}
	return []toolCall{
		v(`v"; DROP TABLE notes; --`, "SELECT 1", false, "view name"),
		v("v; DROP TABLE notes", "SELECT 1", false, "view name"),
		v("v--", "SELECT 1", false, "view name"),
		v("query_errors", "SELECT 1", false, "pick another name"),
		v("QUERY_ERRORS", "SELECT 1", false, "pick another name"),
		withArgs(v("query_errors", "SELECT 1", false, "pick another name"), "replace", true),
		v("Query_Log", "SELECT 1", false, "pick another name"),
		v("memory_events", "SELECT 1", false, "pick another name"),
		v("query_log_ts", "SELECT 1", false, "pick another name"),
		v("memory_events_no_update", "SELECT 1", false, "pick another name"),
		v("notes", "SELECT 1", false, "pick another name"),
		v("v_notes", "SELECT 1", false, "replace=true"),
		withArgs(v("v_notes", "DELETE FROM notes", false, "destructive_query"), "replace", true),
		v("sqlite_evil", "SELECT 1", false, "SQLite error"),
		v("v_ok", "SELECT 1; DROP TABLE notes", false, "one statement"),
		v("v_ok", "DELETE FROM notes", false, "destructive_query"),
		v("v_ok", "INSERT INTO notes (title) VALUES ('x')", false, "write_query"),
		v("v_ok", "SELECT load_extension('evil')", false, "load_extension"),
		v("v_ok", "PRAGMA table_info(notes)", false, "SELECT"),
		v("v_ok", "SELECT ?", false, "parameter"),
		v("v_ok", "SELECT 1;\x00DROP TABLE notes", false, "one statement"),
		v("v_ok", "ATTACH '/tmp/evil.db' AS evil", false, "ATTACH"),
		v("v_ok", "PRAGMA query_only = ''", false, "PRAGMA"),
		either(v("v_ok", ";SELECT 1", false, ""), "v_ok"),
		either(v("v_ok", ";PRAGMA query_only = ''", false, ""), ""),
		either(v("v_ok", "\ufeffPRAGMA query_only = ''", false, ""), ""),
		either(v("v_ok", "SELECT * FROM temp.sqlite_master", false, ""), "v_ok"),
		v("  v_ok  ", "SELECT 1 -- trailing comment", true, "view v_ok created"),
		v("v_ok", "SELECT 1 /* unterminated", true, "view v_ok created"),
		v("v_ok", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c", true, "view v_ok created"),
		withArgs(v("v_ok", "SELECT id FROM notes", true, "view v_ok created"), "description", "x\nDROP TABLE notes; --\r\n*/ DROP TABLE tags; /*"),
	}
}

// TestArgumentTricks runs each tricky argument on a fresh database and checks
// its answer and that no table changed.
func TestArgumentTricks(t *testing.T) {
	var calls []toolCall
	calls = append(calls, describeCalls()...)
	calls = append(calls, searchCalls()...)
	calls = append(calls, createViewCalls()...)
	// No case here runs away, so the deadline only has to outlast a loaded
	// machine: dozens of parallel searches under the race detector went past
	// the corpus's 1 s deadline now and then.
	limits := corpusLimits()
	limits.QueryTimeout = 10 * time.Second
	for _, c := range calls {
		t.Run(c.name+"/"+caseName(argSummary(c.args)), func(t *testing.T) {
			t.Parallel()
			env := freshWith(t, limits)
			in := inspect(t, env)
			before := in.snapshot(t)
			text, isErr := env.Call(t, c.name, c.args)
			assert.Len(t, env.audit.all(), 1, "one audit entry")
			switch {
			case c.either:
			case c.ok:
				if assert.False(t, isErr, "want success, got %q", text) {
					assert.Contains(t, text, c.okHas)
				}
			default:
				if assert.True(t, isErr, "want a refusal, got %q", text) {
					assert.Contains(t, text, c.errorHas, "the refusal says what is wrong")
				}
			}
			after := in.snapshot(t)
			if !isErr && c.view != "" {
				after.Tables["sqlite_schema"] = withoutView(after.Tables["sqlite_schema"], c.view)
				after.Header = before.Header // creating the view bumps schema_version
			}
			check(t, c.name, before, after, true, 0, false)
			assert.Equal(t, baselineConnState(t), connState(t, env.Store), "the pooled connections changed state")
			if !isErr && c.view != "" {
				_, isErr := env.Call(t, "read_query", map[string]any{"query": "SELECT * FROM " + c.view, "limit": 5})
				assert.False(t, isErr, "the new view reads")
			}
		})
	}
}

// withoutView drops the dumped sqlite_schema row of the view named name.
func withoutView(rows []string, name string) []string {
	var out []string
	for _, r := range rows {
		if !strings.Contains(r, fmt.Sprintf("|text4:view|text%d:%s|", len(name), name)) {
			out = append(out, r)
		}
	}
	return out
}

// argSummary names a call by its arguments.
func argSummary(args map[string]any) string {
	for _, k := range []string{"table", "name"} {
		if v, ok := args[k].(string); ok {
			s := k + "=" + v
			for _, extra := range []string{"select_sql", "columns", "key_column", "where", "description"} {
				if x, ok := args[extra]; ok {
					s += " " + extra + "=" + strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(toString(x), "\n", " "), "\r", " "))
				}
			}
			return s
		}
	}
	return "?"
}

func toString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []string:
		return strings.Join(v, ",")
	}
	return ""
}
