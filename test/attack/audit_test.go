package attack_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// auditedAttacks is one refused attack of each kind, run through a server
// whose audit rows go to query_log as in production.
var auditedAttacks = []struct{ tool, sql string }{
	{"read_query", "INSERT INTO notes (title) VALUES ('x')"},
	{"read_query", ";PRAGMA query_only = ''"},
	{"read_query", "ATTACH '{{dir}}/evil.db' AS evil"},
	{"write_query", "DELETE FROM notes"},
	{"write_query", "UPDATE trap SET v = 'y'"},
	{"write_query", "VACUUM INTO '{{dir}}/copy.db'"},
	{"write_query", "UPDATE bulk SET v = v + 1"},
	{"destructive_query", "DELETE FROM query_log"},
	{"destructive_query", "DROP TRIGGER query_log_no_delete"},
	{"destructive_query", "INSERT INTO cp_trap DEFAULT VALUES"},
	{"destructive_query", "SELECT 1; DELETE FROM notes"},
}

// TestRefusalsAreAuditedInQueryLog checks the one change a refused call may
// make: its own audit row, which records the message the agent saw.
func TestRefusalsAreAuditedInQueryLog(t *testing.T) {
	data, err := os.ReadFile(seededTemplate(t))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "test.db")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	env := &corpusEnv{Env: harness.New(t, harness.Config{DBPath: path, Limits: corpusLimits()}), outside: t.TempDir()}
	in := newInspector(t, env)
	before := in.snapshot(t)
	for _, a := range auditedAttacks {
		args := map[string]any{"query": env.expand(a.sql)}
		if a.tool == "destructive_query" {
			args["reason"] = "attack corpus"
		}
		text, isErr := env.Call(t, a.tool, args)
		assert.True(t, isErr, "%s %q must be refused, got %q", a.tool, a.sql, text)
		after := in.snapshot(t)
		check(t, a.tool+" "+a.sql, before, after, true, 1, a.tool == "destructive_query")
		tool, ok, msg := in.lastAudit(t)
		assert.Equal(t, a.tool, tool, a.sql)
		assert.False(t, ok, a.sql)
		assert.Equal(t, text, msg, "the audit row records the message the agent saw")
		before = after
	}
	assert.Equal(t, baselineConnState(t), connState(t, env.Store))
}
