package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestServerNames(t *testing.T) {
	for _, tc := range []struct {
		name          string
		table, object bool
	}{
		{"memory_events", true, true},
		{"memory_checkpoints", true, true},
		{"query_log", true, true},
		{"memory_head_signatures", true, true},
		{"Memory_Retractions", true, true},
		{"memory_provenance", true, true},
		{"QUERY_LOG", true, true},
		{"Memory_Events", true, true},
		{"query_errors", false, true},
		{"Query_Errors", false, true},
		{"query_log_ts", false, false},
		{"notes", false, false},
		{"", false, false},
		{" query_log", false, false},
		// SQLite folds ASCII letters only; U+212A KELVIN SIGN is not a "k".
		{"memory_chec\u212Apoints", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.table, domain.IsServerTable(tc.name), "IsServerTable")
			assert.Equal(t, tc.object, domain.IsServerObject(tc.name), "IsServerObject")
		})
	}
}

func TestServerNameLists(t *testing.T) {
	assert.Equal(t, []string{"memory_events", "memory_checkpoints", "query_log", "mcp_approvals", "mcp_approval_decisions", "memory_head_signatures",
		"memory_retractions", "memory_provenance"}, domain.ServerTables)
	assert.Equal(t, []string{"query_errors"}, domain.ServerViews)
}

func TestIsInternalName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"sqlite_master", true},
		{"sqlite_stat1", true},
		{"SQLITE_SEQUENCE", true},
		{"SQLite_autoindex_t_1", true},
		{"sqlite_", true},
		{"sqlite", false},
		{"sqlitedata", false},
		{"SQLiteNotes", false},
		{"sqliteXmaster", false},
		{"my_sqlite_table", false},
		{"", false},
		{"ſqlite_x", false},
	} {
		assert.Equal(t, tc.want, domain.IsInternalName(tc.name), tc.name)
	}
}

func TestValidateViewName(t *testing.T) {
	const badName = "view name must match [A-Za-z_][A-Za-z0-9_]*"
	for _, tc := range []struct {
		name, in, want string
		kind           error
		message        string
	}{
		{name: "plain", in: "recent", want: "recent"},
		{name: "stripped", in: "  recent \n", want: "recent"},
		{name: "python whitespace stripped", in: "\x1frecent\x1c\u3000", want: "recent"},
		{name: "underscore and digits", in: "_v2", want: "_v2"},
		{name: "mixed case", in: "Recent_Notes", want: "Recent_Notes"},
		{name: "leading digit", in: "2recent", kind: domain.ErrInvalidArgument, message: badName},
		{name: "dash", in: "recent-notes", kind: domain.ErrInvalidArgument, message: badName},
		{name: "inner space", in: "recent notes", kind: domain.ErrInvalidArgument, message: badName},
		{name: "non-ASCII letter", in: "récent", kind: domain.ErrInvalidArgument, message: badName},
		{name: "quote", in: `a"b`, kind: domain.ErrInvalidArgument, message: badName},
		{name: "empty", in: "", kind: domain.ErrInvalidArgument, message: badName},
		{name: "only spaces", in: "  \t", kind: domain.ErrInvalidArgument, message: badName},
		{name: "server table", in: "query_log", kind: domain.ErrConflict, message: "query_log is a server object; pick another name"},
		{name: "server table upper case", in: " MEMORY_EVENTS ", kind: domain.ErrConflict, message: "MEMORY_EVENTS is a server object; pick another name"},
		{name: "server view", in: "query_errors", kind: domain.ErrConflict, message: "query_errors is a server object; pick another name"},
		{name: "server view mixed case", in: "Query_Errors", kind: domain.ErrConflict, message: "Query_Errors is a server object; pick another name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := domain.ValidateViewName(tc.in)
			if tc.kind == nil {
				assert.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			assert.ErrorIs(t, err, tc.kind)
			if err != nil {
				// The message is the agent-facing contract of create_view (docs/decisions.md#fixes-over-the-reference, item 4).
				assert.Equal(t, tc.message, err.Error())
			}
			assert.Empty(t, got)
		})
	}
}

func TestNormalizeViewBody(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "SELECT 1", "SELECT 1"},
		{"stripped", "\n  SELECT 1 \t", "SELECT 1"},
		{"trailing semicolon", "SELECT 1;", "SELECT 1"},
		{"several semicolons", "SELECT 1;;;", "SELECT 1"},
		{"semicolon then space", "SELECT 1;  \n", "SELECT 1"},
		{"space between semicolons keeps one", "SELECT 1; ;", "SELECT 1;"},
		{"space before semicolon", "SELECT 1 ;", "SELECT 1"},
		{"semicolon inside", "SELECT ';' AS s", "SELECT ';' AS s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := domain.NormalizeViewBody(tc.in)
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	for _, in := range []string{"", "   ", ";", " ;; \n", "\x1c;"} {
		t.Run("empty "+in, func(t *testing.T) {
			got, err := domain.NormalizeViewBody(in)
			assert.ErrorIs(t, err, domain.ErrInvalidArgument)
			if err != nil {
				assert.Equal(t, "select_sql must not be empty", err.Error())
			}
			assert.Empty(t, got)
		})
	}
}

func TestCollapseSpace(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "newest notes first", "newest notes first"},
		{"runs of spaces", "  newest   notes  ", "newest notes"},
		{"line breaks and tabs", "newest\nnotes\r\n\tfirst", "newest notes first"},
		{"python-only separators", "a\x1cb\x1dc\x1ed\x1fe", "a b c d e"},
		{"unicode spaces", "a\u2028b\u00a0c\u3000d\u0085e", "a b c d e"},
		{"empty", "", ""},
		{"only spaces", " \n\t ", ""},
		{"non-space kept", "a\u200bb", "a\u200bb"},
	} {
		assert.Equal(t, tc.want, domain.CollapseSpace(tc.in), tc.name)
	}
}

// Litestream's tables are marked system in list_tables and hidden from
// get_schema unless include_system, like the server's own.
func TestLitestreamTablesAreSystemObjects(t *testing.T) {
	for _, name := range []string{"_litestream_seq", "_litestream_lock", "_LITESTREAM_SEQ"} {
		assert.True(t, domain.TableInfo{Name: name, Type: "table"}.System(), name)
	}
	assert.False(t, domain.TableInfo{Name: "litestream_notes", Type: "table"}.System())
	objs := []domain.SchemaObject{
		{Type: "table", Name: "notes", TableName: "notes", SQL: "CREATE TABLE notes (a)"},
		{Type: "table", Name: "_litestream_seq", TableName: "_litestream_seq", SQL: "CREATE TABLE _litestream_seq (id, seq)"},
		{Type: "table", Name: "_litestream_lock", TableName: "_litestream_lock", SQL: "CREATE TABLE _litestream_lock (id)"},
	}
	out, shown := domain.RenderSchema(objs, false, 1<<20)
	assert.Equal(t, 1, shown)
	assert.NotContains(t, out, "_litestream_")
	out, shown = domain.RenderSchema(objs, true, 1<<20)
	assert.Equal(t, 3, shown)
	assert.Contains(t, out, "_litestream_seq")
}
