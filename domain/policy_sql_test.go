package domain_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestPolicyCheckSQL(t *testing.T) {
	for _, tc := range []struct {
		name, sql, want string
	}{
		{"empty journal_mode", "PRAGMA journal_mode = ''", fmt.Sprintf(pragmaSet, "journal_mode", "journal_mode")},
		{"empty query_only in parentheses", "pragma query_only('')", fmt.Sprintf(pragmaSet, "query_only", "query_only")},
		{"schema-qualified", "PRAGMA main.user_version=''", fmt.Sprintf(pragmaSet, "user_version", "user_version")},
		{"quoted names and comments", "/* c */ PRAGMA -- x\n \"main\" . [busy_timeout] /**/ = ''", fmt.Sprintf(pragmaSet, "busy_timeout", "busy_timeout")},
		{"backquoted and doubled quote", "PRAGMA `sync\"\"x` = 0", fmt.Sprintf(pragmaFormat, "sync\"\"x")},
		{"string as name", "PRAGMA 'synchronous'=''", fmt.Sprintf(pragmaSet, "synchronous", "synchronous")},
		{"doubled quote inside double quotes", "PRAGMA \"a\"\"b\"=1", fmt.Sprintf(pragmaFormat, "a\"b")},
		{"EXPLAIN", "EXPLAIN PRAGMA cache_size=''", fmt.Sprintf(pragmaSet, "cache_size", "cache_size")},
		{"EXPLAIN QUERY PLAN", "explain query plan pragma query_only('')", fmt.Sprintf(pragmaSet, "query_only", "query_only")},
		{"name kept as written", "PRAGMA Query_Only=''", fmt.Sprintf(pragmaSet, "Query_Only", "Query_Only")},
		{"writable pragma with value", "PRAGMA foreign_keys=ON", fmt.Sprintf(pragmaSet, "foreign_keys", "foreign_keys")},
		{"value-less read", "PRAGMA journal_mode", ""},
		{"value-less read with semicolon", "PRAGMA journal_mode;", ""},
		{"value-less read with comment", "PRAGMA journal_mode -- = ''", ""},
		{"introspection with empty argument", "PRAGMA table_info('')", ""},
		{"introspection with = argument", "PRAGMA table_info = notes", ""},
		{"introspection with schema", "PRAGMA [main].table_info(notes)", ""},
		{"EXPLAIN without pragma", "EXPLAIN SELECT 1", ""},
		{"EXPLAIN QUERY without PLAN", "EXPLAIN QUERY PRAGMA x=1", ""},
		{"select", "SELECT 'PRAGMA journal_mode='''", ""},
		{"bare keyword", "PRAGMA", ""},
		{"unterminated comment", "/* PRAGMA journal_mode=''", ""},
		{"unterminated quote", "PRAGMA \"journal_mode", ""},
		{"empty", "", ""},
		{"VACUUM", "VACUUM", vacuum},
		{"vacuum into after a comment", "-- compact\n vacuum INTO 'copy.db'", vacuum},
		{"VACUUM schema", "VACUUM main;", vacuum},
		{"EXPLAIN VACUUM", "EXPLAIN VACUUM", vacuum},
		{"quoted vacuum is a name", "SELECT * FROM \"vacuum\"", ""},
		{"vacuum as a column", "SELECT vacuum FROM t", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, tier := range allTiers {
				assert.Equal(t, tc.want, domain.Policy{Tier: tier}.CheckSQL(tc.sql), tier.Tool())
			}
		})
	}
}

func TestActionLabel(t *testing.T) {
	for _, tc := range []struct {
		action domain.Action
		want   string
	}{
		{domain.ActionInsert, "INSERT"},
		{domain.ActionCreateVTable, "CREATE VIRTUAL TABLE"},
		{domain.ActionDropVTable, "DROP VIRTUAL TABLE"},
		{domain.ActionTransaction, "transaction control"},
		{domain.ActionSavepoint, "SAVEPOINT"},
		{domain.ActionAlterTable, "ALTER TABLE"},
		{domain.ActionCreateTempTable, "CREATE TEMP TABLE"},
		{domain.Action(0), "action 0"},
		{domain.Action(34), "action 34"},
	} {
		assert.Equal(t, tc.want, tc.action.Label(), "action %d", int(tc.action))
	}
	for a := domain.ActionCreateIndex; a <= domain.ActionRecursive; a++ {
		assert.False(t, strings.HasPrefix(a.Label(), "action "), "action %d is unlabelled", int(a))
	}
}

func TestActionIsDDL(t *testing.T) {
	ddl := map[domain.Action]bool{
		domain.ActionCreateTable: true, domain.ActionCreateIndex: true, domain.ActionReindex: true,
		domain.ActionAnalyze: true, domain.ActionDropTable: true, domain.ActionDropView: true,
		domain.ActionDropIndex: true, domain.ActionDropTrigger: true, domain.ActionDropVTable: true,
		domain.ActionAlterTable: true, domain.ActionCreateTrigger: true, domain.ActionCreateView: true,
		domain.ActionCreateVTable: true,
	}
	for a := domain.Action(0); a <= domain.ActionRecursive+1; a++ {
		assert.Equal(t, ddl[a], a.IsDDL(), "action %d (%s)", int(a), a.Label())
	}
}

func TestTierTool(t *testing.T) {
	assert.Equal(t, "read_query", domain.TierRead.Tool())
	assert.Equal(t, "write_query", domain.TierWrite.Tool())
	assert.Equal(t, "destructive_query", domain.TierDestructive.Tool())
	assert.Equal(t, "tier 0", domain.Tier(0).Tool())
}
