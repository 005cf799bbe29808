package interop_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"

	// The reference's file is written and read back through database/sql
	// directly, never through our store.
	_ "modernc.org/sqlite"
)

// ourSession is the session id the harness gives our server.
const ourSession = "20260913T101100Z-test"

// The checkpoint the reference wrote after event 20.
const (
	refCheckpointTS      = "2026-09-15T20:21:00Z"
	refCheckpointSession = "20261001T235959Z-ffff"
	refCheckpointSummary = "twenty events in: escaping, controls, non-BMP and injection-looking text all stored\nnext: hand over to the Go server"
)

// clock is a fixed, settable clock for our server.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t *testing.T, ts string) {
	t.Helper()
	v, err := time.Parse(domain.TSLayout, ts)
	require.NoError(t, err)
	c.mu.Lock()
	c.t = v
	c.mu.Unlock()
}

// openRaw opens path with plain database/sql.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", Path: path, RawQuery: "_pragma=busy_timeout(5000)"}
	db, err := sql.Open("sqlite", u.String())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// writeReferenceFile builds the file the Python reference leaves after
// appending the given rows and checkpointing once at the last one: its
// bootstrap script, its INSERTs (all seven columns, explicit id), its
// checkpoint row and the audit rows its spans write. Like the reference, it
// leaves the default rollback journal; our server switches the file to WAL.
func writeReferenceFile(t *testing.T, rows []row) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "reference.db")
	db := openRaw(t, path)
	ddl, err := os.ReadFile("testdata/reference-schema.sql")
	require.NoError(t, err)
	_, err = db.Exec(string(ddl))
	require.NoError(t, err)

	tx, err := db.Begin()
	require.NoError(t, err)
	defer tx.Rollback()
	for _, r := range rows {
		_, err := tx.Exec("INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
			r.ID, r.TS, r.Session, r.Kind, r.Content, r.PrevHash, r.H)
		require.NoError(t, err)
		// json.dumps(detail, ensure_ascii=False); the fixture's kinds are
		// plain ASCII words.
		detail := fmt.Sprintf(`{"event_id": %d, "kind": "%s"}`, r.ID, r.Kind)
		_, err = tx.Exec("INSERT INTO query_log (ts, session, tool, query, ok, rows, error, duration_ms, detail) VALUES (?, ?, 'append_event', NULL, 1, 1, NULL, 0, ?)",
			r.TS, r.Session, detail)
		require.NoError(t, err)
	}
	last := rows[len(rows)-1]
	_, err = tx.Exec("INSERT INTO memory_checkpoints (ts, session, summary, last_event_id, head_hash) VALUES (?, ?, ?, ?, ?)",
		refCheckpointTS, refCheckpointSession, refCheckpointSummary, last.ID, last.H)
	require.NoError(t, err)
	require.NoError(t, tx.Commit())
	require.NoError(t, db.Close())
	return path
}

// fixtureRows returns the fixture's events as stored rows.
func fixtureRows(t *testing.T) []row {
	t.Helper()
	var rows []row
	for _, e := range loadFixture(t) {
		rows = append(rows, row{e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash})
	}
	return rows
}

// readRows reads every memory_events row in id order.
func readRows(t *testing.T, path string) []row {
	t.Helper()
	rs, err := openRaw(t, path).Query("SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events ORDER BY id")
	require.NoError(t, err)
	defer rs.Close()
	var out []row
	for rs.Next() {
		var r row
		require.NoError(t, rs.Scan(&r.ID, &r.TS, &r.Session, &r.Kind, &r.Content, &r.PrevHash, &r.H))
		out = append(out, r)
	}
	require.NoError(t, rs.Err())
	return out
}

// schema lists the file's schema objects.
func schema(t *testing.T, path string) [][3]string {
	t.Helper()
	rs, err := openRaw(t, path).Query("SELECT type, name, sql FROM sqlite_schema ORDER BY type, name")
	require.NoError(t, err)
	defer rs.Close()
	var out [][3]string
	for rs.Next() {
		var o [3]string
		var s sql.NullString
		require.NoError(t, rs.Scan(&o[0], &o[1], &s))
		o[2] = s.String
		out = append(out, o)
	}
	require.NoError(t, rs.Err())
	return out
}

// withoutSearchIndex leaves out search_memory's index (the FTS5 table and
// its shadow tables), which the server adds to every file it opens.
func withoutSearchIndex(objs [][3]string) [][3]string {
	var out [][3]string
	for _, o := range objs {
		if !strings.HasPrefix(o[1], domain.MemoryIndex) {
			out = append(out, o)
		}
	}
	return out
}

// verified is verify_chain's answer for a good chain.
func verified(events int, head string) string {
	return `{"ok": true, "events": ` + strconv.Itoa(events) + `, "head_id": ` + strconv.Itoa(events) + `, "head_hash": "` + head + `"}`
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func TestReferenceFileVerifiesAndOurAppendsVerifyWithTheReferenceRule(t *testing.T) {
	ref := fixtureRows(t)
	path := writeReferenceFile(t, ref)
	before := schema(t, path)

	clk := &clock{}
	clk.set(t, "2026-09-16T09:00:00Z")
	env := harness.New(t, harness.Config{DBPath: path, Clock: clk})

	// Reference -> ours: the 20 events verify, to the fixture's last hash.
	assert.Equal(t, verified(20, ref[19].H), env.MustCall(t, "verify_chain", nil))
	assert.Equal(t, "# checkpoint 1 | "+refCheckpointTS+" | session "+refCheckpointSession+" | at event 20\n"+
		refCheckpointSummary+"\n# not sealed (written by the reference implementation or an older server): no hash covers this summary\n"+
		"\n# 0 events since checkpoint | chain ok (20 events)",
		env.MustCall(t, "get_resume_context", nil), "the reference's checkpoint is anchored: no warning; it is unsealed, and says so")
	// A head hash kept from the reference's file is found in it.
	assert.Equal(t, `{"ok": true, "events": 20, "head_id": 20, "head_hash": "`+ref[19].H+`", "expected_head_id": 12}`,
		env.MustCall(t, "verify_chain", map[string]any{"expected_head": strings.ToUpper(ref[11].H)}))
	assert.Equal(t, before, withoutSearchIndex(schema(t, path)), "opening the file left the reference's schema as it was, adding only the search index")

	// Ours -> reference: two events appended by our server, with content
	// that exercises stripping and every escaping rule.
	env.MustCall(t, "append_event", map[string]any{
		"content": "  \u2028 interop: <b>&amp;</b> \"quoted\" \\ C:/path\u2029x \x01\x08\x0c\x7f\u0085 😀 🇩🇪 \x1f\u3000",
		"kind":    " decision\t",
	})
	clk.set(t, "2026-09-16T09:00:01Z")
	env.MustCall(t, "append_event", map[string]any{"content": `a literal backslash-u: \u2028 stays six characters`})

	rows := readRows(t, path)
	require.Len(t, rows, 22)
	assert.Equal(t, ref, rows[:20], "the reference's rows are untouched")
	want := []row{
		{21, "2026-09-16T09:00:00Z", ourSession, "decision",
			"interop: <b>&amp;</b> \"quoted\" \\ C:/path\u2029x \x01\x08\x0c\x7f\u0085 😀 🇩🇪", ref[19].H, ""},
		{22, "2026-09-16T09:00:01Z", ourSession, "note", `a literal backslash-u: \u2028 stays six characters`, "", ""},
	}
	want[0].H = pyHash(want[0])
	want[1].PrevHash = want[0].H
	want[1].H = pyHash(want[1])
	assert.Equal(t, want, rows[20:], "stored as the reference would store them, hashed by its rule")
	breakAt, reason := pyVerify(rows)
	assert.Zero(t, breakAt, reason)

	assert.Equal(t, verified(22, want[1].H), env.MustCall(t, "verify_chain", nil))
	assert.Contains(t, env.MustCall(t, "get_resume_context", nil), "\n# 2 events since checkpoint | chain ok (22 events)\n")
}

func TestOurChainOfTheFixtureContentsVerifiesWithTheReferenceRule(t *testing.T) {
	clk := &clock{}
	clk.set(t, "2026-09-13T00:00:00Z")
	env := harness.New(t, harness.Config{Clock: clk})
	ref := fixtureRows(t)
	for _, r := range ref {
		clk.set(t, r.TS)
		// Surrounding whitespace the reference strips before storing.
		env.MustCall(t, "append_event", map[string]any{"content": " \n" + r.Content + "\t ", "kind": r.Kind})
	}
	rows := readRows(t, env.DBPath)
	require.Len(t, rows, len(ref))
	for i, r := range rows {
		assert.Equal(t, ref[i].Content, r.Content, "event %d stored stripped", r.ID)
		assert.Equal(t, ref[i].TS, r.TS)
		assert.Equal(t, ourSession, r.Session)
	}
	breakAt, reason := pyVerify(rows)
	assert.Zero(t, breakAt, reason)
	assert.Equal(t, verified(len(ref), rows[len(rows)-1].H), env.MustCall(t, "verify_chain", nil))
}

// TestChainHashedWithPlainEncodingJSONIsRejected builds the fixture's chain
// the way a naive Go port would hash it (json.Marshal: <, >, &, U+2028 and
// U+2029 escaped), consistently linked. Our server must refuse it at the
// first event whose bytes differ, event 7 (U+2028), and keep events 1-6.
func TestChainHashedWithPlainEncodingJSONIsRejected(t *testing.T) {
	ref := fixtureRows(t)
	naive := make([]row, len(ref))
	prev := genesis
	for i, r := range ref {
		r.PrevHash = prev
		r.H = naiveHash(r)
		naive[i], prev = r, r.H
	}
	for i := range 6 {
		require.Equal(t, ref[i].H, naive[i].H, "events 1-6 need no escape that differs")
	}
	env := harness.New(t, harness.Config{DBPath: writeReferenceFile(t, naive)})
	assert.Equal(t, `{"ok": false, "events": 20, "head_id": 6, "head_hash": "`+ref[5].H+`", "break_at_id": 7, `+
		`"reason": "stored hash does not match the recomputed hash (content or metadata was altered)"}`,
		env.MustCall(t, "verify_chain", nil))
	assert.Contains(t, env.MustCall(t, "get_resume_context", nil),
		"\n# 0 events since checkpoint | chain BROKEN at event 7: stored hash does not match the recomputed hash (content or metadata was altered)")
}

// naiveHash hashes with encoding/json's defaults, which the reference rule
// does not allow.
func naiveHash(r row) string {
	b := mustJSON([]any{r.ID, r.TS, r.Session, r.Kind, r.Content, r.PrevHash})
	return sha256Hex(b)
}

func TestReferenceFileOpensReadOnly(t *testing.T) {
	ref := fixtureRows(t)
	path := writeReferenceFile(t, ref)
	env := harness.New(t, harness.Config{DBPath: path, ReadOnly: true})
	assert.Equal(t, verified(20, ref[19].H), env.MustCall(t, "verify_chain", nil))
	tools, err := env.Client.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range tools.Tools {
		assert.NotContains(t, []string{"append_event", "checkpoint"}, tool.Name, "read-only mode offers no memory writes")
	}
}

// TestReferenceFileGainsTheSearchIndex: a file the reference made has no
// search index; the first writable start builds it from every event and
// the checkpoint, so search_memory finds them (with diacritics folded:
// "resume" finds "résumé"), and a read-only start of such a file says
// the index is missing instead of scanning.
func TestReferenceFileGainsTheSearchIndex(t *testing.T) {
	ref := fixtureRows(t)
	path := writeReferenceFile(t, ref)
	ro := harness.New(t, harness.Config{DBPath: path, ReadOnly: true})
	out := ro.MustFail(t, "search_memory", map[string]any{"query": "instructions"})
	assert.Contains(t, out, "no search index yet")

	env := harness.New(t, harness.Config{DBPath: path})
	assert.True(t, env.Store.IndexRebuilt())
	out = env.MustCall(t, "search_memory", map[string]any{"query": "instructions"})
	assert.Contains(t, out, "\nevent,19,"+ref[18].TS+",action,")
	assert.Contains(t, out, "[instructions]")
	out = env.MustCall(t, "search_memory", map[string]any{"query": "resume"})
	assert.Contains(t, out, "\nevent,9,")
	out = env.MustCall(t, "search_memory", map[string]any{"query": "hand over"})
	assert.Contains(t, out, "\ncheckpoint,1,"+refCheckpointTS+",checkpoint,"+refCheckpointSession+",")
	assert.Equal(t, verified(20, ref[19].H), env.MustCall(t, "verify_chain", nil), "the index changes nothing the chain hashes")
}
