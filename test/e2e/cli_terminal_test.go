package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// terminalPayload moves the cursor up, erases the line, returns the
// carriage, rings the bell, and holds DEL, a one-byte CSI (C1) and a
// right-to-left override: printed raw, it rewrites what a person sees.
const terminalPayload = "\x1b[1A\x1b[2K\r\a\x7f\u009b2J\u202e"

// terminalRaw are the characters of terminalPayload that must never reach
// a person's terminal as they are.
var terminalRaw = []string{"\x1b", "\r", "\a", "\x7f", "\u009b", "\u202e"}

// assertTerminalSafe checks that out holds none of terminalRaw.
func assertTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	for _, c := range terminalRaw {
		assert.NotContains(t, out, c, "%s prints %q raw: %q", what, c, out)
	}
}

// TestCLITerminalNeverGetsControlCharacters puts the payload everywhere
// agent-written text is stored (a table cell, a query's comment, an
// error, an event, a checkpoint) and in the database's folder name, then
// runs every printing subcommand: neither stdout nor stderr carries a
// raw control character, and --json still decodes to the exact text.
func TestCLITerminalNeverGetsControlCharacters(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "folder"+terminalPayload)
	require.NoError(t, os.Mkdir(dir, 0o755))
	db := filepath.Join(dir, "memory.db")
	cs := start(t, db).Session
	lit := "'" + terminalPayload + "'"
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE t(x TEXT)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES (" + lit + ")"})
	mustCall(t, cs, "read_query", map[string]any{"query": "SELECT 1 -- " + terminalPayload + "#41 ok"})
	mustCall(t, cs, "append_event", map[string]any{"content": "event " + terminalPayload, "kind": "note"})
	mustCall(t, cs, "checkpoint", map[string]any{"summary": "summary " + terminalPayload})
	mustCall(t, cs, "append_event", map[string]any{"content": "after " + terminalPayload, "kind": "note"})
	mustCall(t, cs, "snapshot", map[string]any{"reason": "reason " + terminalPayload})

	for _, tc := range []struct {
		name string
		args []string
		// holds is text the output must show (escaped), so the case
		// proves the payload was printed at all.
		holds string
	}{
		{"log", []string{"log", "--db", db}, `\u001b[1A`},
		{"call cell", []string{"call", "--db", db, "read_query", `{"query": "SELECT x FROM t"}`}, `\u009b2J`},
		{"call error", []string{"call", "--db", db, "read_query", `{"query": "SELECT * FROM \"` + jsonText(terminalPayload) + `\""}`}, `\u202e`},
		{"resume", []string{"resume", "--db", db}, `after \u001b`},
		{"verify", []string{"verify", "--db", db}, "chain ok"},
		{"snapshots list", []string{"snapshots", "list", "--db", db}, `folder\u001b`},
		{"error line", []string{"verify", "--db", filepath.Join(dir, "typo"+terminalPayload+".db")}, `typo\u001b`},
		{"usage error", []string{"log", "--db", db, "--since", terminalPayload}, "--since"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runBinary(t, nil, tc.args...)
			assertTerminalSafe(t, "stdout", out.stdout)
			assertTerminalSafe(t, "stderr", out.stderr)
			assert.Contains(t, out.stdout+out.stderr, tc.holds)
		})
	}

	// --json stays exact: the documents decode to the stored text.
	var logged struct{ Rows []cliSubLogRow }
	out := runBinary(t, nil, "log", "--db", db, "--json")
	require.Equal(t, 0, out.code, out.stderr)
	assertTerminalSafe(t, "log --json", out.stdout)
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &logged))
	found := false
	for _, r := range logged.Rows {
		found = found || r.Query != nil && strings.Contains(*r.Query, "-- "+terminalPayload+"#41 ok")
	}
	assert.True(t, found, "log --json holds the query exactly")
	var res struct{ Text string }
	out = runBinary(t, nil, "call", "--db", db, "--json", "read_query", `{"query": "SELECT x FROM t"}`)
	require.Equal(t, 0, out.code, out.stderr)
	assertTerminalSafe(t, "call --json", out.stdout)
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &res))
	assert.Contains(t, res.Text, terminalPayload, "call --json holds the cell exactly")
	var list struct{ Dir string }
	out = runBinary(t, nil, "snapshots", "--db", db, "--json")
	require.Equal(t, 0, out.code, out.stderr)
	assertTerminalSafe(t, "snapshots --json", out.stdout)
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &list))
	assert.Contains(t, list.Dir, "folder"+terminalPayload)
}

// jsonText is s as the inside of a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
