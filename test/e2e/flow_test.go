package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// allTools are the 15 tools a writable server offers (docs/decisions.md#surface).
var allTools = []string{
	"append_event", "checkpoint", "create_view", "describe_table", "destructive_query", "get_resume_context",
	"get_schema", "list_tables", "read_query", "retract_event", "search_memory", "search_text", "snapshot", "verify_chain", "write_query",
}

// snapshotName is the snapshot file name (docs/decisions.md#snapshots) for a database named mem.db.
var snapshotName = regexp.MustCompile(`^mem\.\d{8}T\d{6}\.\d{3}Z(\.\d+)?\.db$`)

// snapshotPath pulls the absolute snapshot path out of a tool result that
// ends with it ("...; snapshot: /abs/path" or "ok: snapshot written: /abs/path").
func snapshotPath(t *testing.T, out, marker string) string {
	t.Helper()
	i := strings.LastIndex(out, marker)
	require.GreaterOrEqual(t, i, 0, "no %q in %q", marker, out)
	path := strings.SplitN(out[i+len(marker):], "\n", 2)[0]
	require.True(t, filepath.IsAbs(path), "snapshot path %q is not absolute", path)
	return path
}

// assertSnapshot checks a snapshot file: in the database's own snapshot
// folder, named per docs/decisions.md#snapshots, sound, and holding notesWant rows in notes.
func assertSnapshot(t *testing.T, db, path string, notesWant int) {
	t.Helper()
	assert.Equal(t, filepath.Join(filepath.Dir(db), "mem.snapshots"), filepath.Dir(path))
	assert.Regexp(t, snapshotName, filepath.Base(path))
	_, err := os.Stat(path)
	require.NoError(t, err, "the snapshot the result names must exist")
	assert.Equal(t, "ok", integrityCheck(t, path))
	var n int
	require.NoError(t, openRO(t, path).QueryRow("SELECT count(*) FROM notes").Scan(&n))
	assert.Equal(t, notesWant, n, "rows in the snapshot's notes table")
}

// TestEveryToolOverStdio walks a realistic session through all 15 tools of
// the real binary, checking each answer and what it left on disk.
func TestEveryToolOverStdio(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	cs := start(t, db).Session

	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	assert.Equal(t, allTools, names)

	assert.Equal(t, "ok: schema statement executed", mustCall(t, cs, "write_query", map[string]any{
		"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT)"}))
	assert.Equal(t, "ok: 3 rows affected (last_insert_rowid=3)", mustCall(t, cs, "write_query", map[string]any{
		"query": "INSERT INTO notes (title, body) VALUES ('alpha', 'first note'), ('beta', 'a note about apples'), ('gamma', NULL)"}))
	assert.Equal(t, "id,title,body\n1,alpha,first note\n2,beta,a note about apples\n3,gamma,\n# 3 rows",
		mustCall(t, cs, "read_query", map[string]any{"query": "SELECT id, title, body FROM notes ORDER BY id"}))
	assert.Contains(t, mustCall(t, cs, "list_tables", nil), "\nnotes,table,0,3\n")
	assert.Contains(t, mustCall(t, cs, "describe_table", map[string]any{"table": "notes"}), "1,title,TEXT,1,,0")

	assert.Equal(t, "ok: view recent created", mustCall(t, cs, "create_view", map[string]any{
		"name": "recent", "select_sql": "SELECT id, title FROM notes ORDER BY id DESC", "description": "newest notes first"}))
	assert.Contains(t, mustCall(t, cs, "get_schema", nil),
		"CREATE VIEW \"recent\" AS\n-- description: newest notes first\nSELECT id, title FROM notes ORDER BY id DESC")
	assert.Equal(t, "id,title\n3,gamma\n# 1 rows, truncated by limit=1 (more rows exist; next page: offset=1; raise limit up to 1000 or narrow the query)",
		mustCall(t, cs, "read_query", map[string]any{"query": "SELECT * FROM recent", "limit": 1}))

	assert.Regexp(t, `^ok: event 1 appended \(hash [0-9a-f]{12}\.\.\.\)$`,
		mustCall(t, cs, "append_event", map[string]any{"content": "schema for notes created", "kind": "decision"}))
	assert.Regexp(t, `^ok: event 2 appended \(hash [0-9a-f]{12}\.\.\.\)$`,
		mustCall(t, cs, "append_event", map[string]any{"content": "three notes seeded"}))
	assert.Equal(t, "ok: checkpoint 1 written at event 3",
		mustCall(t, cs, "checkpoint", map[string]any{"summary": "notes table ready;\nnext: clean up alpha"}))
	mustCall(t, cs, "append_event", map[string]any{"content": "after the checkpoint", "kind": "todo"})
	resume := mustCall(t, cs, "get_resume_context", nil)
	assert.Regexp(t, `^# checkpoint 1 \| \S+ \| session \S+ \| at event 3\nnotes table ready;\nnext: clean up alpha\n`+
		`# sealed in the chain by event 4: the chain's hashes cover this summary\n\n`+
		`# 1 events since checkpoint \| chain ok \(5 events\)\nid,ts,kind,content\n5,\S+,todo,after the checkpoint$`, resume)

	var chain struct {
		OK       bool   `json:"ok"`
		Events   int    `json:"events"`
		HeadID   int    `json:"head_id"`
		HeadHash string `json:"head_hash"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustCall(t, cs, "verify_chain", nil)), &chain))
	assert.True(t, chain.OK)
	assert.Equal(t, 5, chain.Events, "three events, the marker before the first checkpoint and its seal")
	assert.Equal(t, 5, chain.HeadID)
	assert.Len(t, chain.HeadHash, 64)

	out := mustCall(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "alpha was a test row"})
	assert.True(t, strings.HasPrefix(out, "ok: 1 rows affected"), out)
	first := snapshotPath(t, out, "; snapshot: ")
	assertSnapshot(t, db, first, 3) // taken before the DELETE ran
	assert.Equal(t, "count(*)\n2\n# 1 rows", mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) FROM notes"}))

	second := snapshotPath(t, mustCall(t, cs, "snapshot", map[string]any{"reason": "before the release"}), "ok: snapshot written: ")
	assert.NotEqual(t, first, second)
	assertSnapshot(t, db, second, 2)

	assert.Equal(t, "key,column,snippet\n2,body,...ote about apples\n# 1 of 1 matching values in 1 rows (2 candidate rows x 2 columns scanned)",
		mustCall(t, cs, "search_text", map[string]any{"pattern": "apple", "table": "notes", "context_chars": 10}))
	assert.Regexp(t, `^source,id,ts,kind,session,snippet\ncheckpoint,1,\S+,checkpoint,\S+,"notes table ready;\nnext: clean up \[alpha\]"\n# 1 rows$`,
		mustCall(t, cs, "search_memory", map[string]any{"query": "alpha"}))
	assert.Equal(t, "ok: event 5 retracted by event 6; it stays in the chain",
		mustCall(t, cs, "retract_event", map[string]any{"id": 5, "reason": "alpha is gone already"}))
	assert.Contains(t, mustCall(t, cs, "get_resume_context", nil), "\n# 0 events since checkpoint, 1 retracted left out | chain ok (6 events)")

	// Every call above left one audit row, all from this one process.
	log := mustCall(t, cs, "read_query", map[string]any{"query": "SELECT DISTINCT tool FROM query_log ORDER BY tool", "limit": 50})
	assert.Equal(t, "tool\n"+strings.Join(allTools, "\n")+"\n# 15 rows", log)
	assert.Equal(t, "count(DISTINCT session)\n1\n# 1 rows",
		mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(DISTINCT session) FROM query_log"}))
}

// TestVersionMatchesServerInfo pins docs/decisions.md#details: --version prints the version the
// server reports in serverInfo at initialize.
func TestVersionMatchesServerInfo(t *testing.T) {
	t.Parallel()
	var stdout, stderr strings.Builder
	cmd := exec.Command(bin, "--version")
	cmd.Env = e2e.Env()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run())
	assert.Empty(t, stderr.String())
	line, ok := strings.CutSuffix(stdout.String(), "\n")
	require.True(t, ok, "the version line ends with a newline: %q", stdout.String())
	version, ok := strings.CutPrefix(line, "mcp-sqlite-memory ")
	require.True(t, ok, "want 'mcp-sqlite-memory <version>', got %q", line)
	assert.Regexp(t, `^\S+$`, version)

	info := start(t, newDB(t)).Session.InitializeResult().ServerInfo
	assert.Equal(t, "mcp-sqlite-memory", info.Name)
	assert.Equal(t, version, info.Version)
}

// TestEachProcessHasItsOwnSession pins docs/decisions.md#details: two server processes on one
// file write two distinct session ids, each in the reference's format.
func TestEachProcessHasItsOwnSession(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	a, b := start(t, db).Session, start(t, db).Session
	mustCall(t, a, "append_event", map[string]any{"content": "from a"})
	mustCall(t, b, "append_event", map[string]any{"content": "from b"})
	mustCall(t, a, "list_tables", nil)
	mustCall(t, b, "list_tables", nil)

	out := mustCall(t, a, "read_query", map[string]any{"query": "SELECT DISTINCT session FROM query_log ORDER BY session"})
	lines := strings.Split(out, "\n")
	require.Len(t, lines, 4, out)
	assert.Equal(t, []string{"session", "# 2 rows"}, []string{lines[0], lines[3]})
	for _, s := range lines[1:3] {
		assert.Regexp(t, `^\d{8}T\d{6}Z-[0-9a-f]{4}$`, s)
	}
	assert.NotEqual(t, lines[1], lines[2])

	events := mustCall(t, b, "read_query", map[string]any{"query": "SELECT count(DISTINCT session) AS n FROM memory_events"})
	assert.Equal(t, "n\n2\n# 1 rows", events, "each process stamps its own events")
}
