package tools_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// asker is a client's person: it records each question and answers with
// answer.
type asker struct {
	mu        sync.Mutex
	questions []string
	answer    func() (*mcp.ElicitResult, error)
}

func (a *asker) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	a.questions = append(a.questions, req.Params.Message)
	a.mu.Unlock()
	return a.answer()
}

func (a *asker) asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.questions...)
}

// confirmEnv is a seeded server whose client answers elicitations with a
// (nil: a client without elicitation).
func confirmEnv(t *testing.T, c domain.ConfirmSettings, a *asker) (*harness.Env, *mcp.ClientSession) {
	t.Helper()
	return confirmEnvAt(t, harness.Config{Confirm: c}, a, "2025-11-25", nil)
}

// confirmEnvAt is confirmEnv on protocol revision version ("" for the
// SDK's latest), with the client's multi round-trip options mrt.
func confirmEnvAt(t *testing.T, c harness.Config, a *asker, version string, mrt *mcp.MultiRoundTripOptions) (*harness.Env, *mcp.ClientSession) {
	t.Helper()
	server, env := harness.Server(t, c)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	o := &mcp.ClientOptions{MultiRoundTrip: mrt}
	if a != nil {
		o.ElicitationHandler = a.handle
	}
	cs := harness.ConnectWith(t, ct, o, &mcp.ClientSessionOptions{ProtocolVersion: version})
	env.Client = cs
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL)"})
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO notes (title) VALUES ('alpha'), ('beta'), ('gamma')"})
	return env, cs
}

func accept(content map[string]any) func() (*mcp.ElicitResult, error) {
	return func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "accept", Content: content}, nil }
}

// lastConfirm is the confirm record of the latest destructive_query row.
func lastConfirm(t *testing.T, env *harness.Env) string {
	t.Helper()
	return env.MustCall(t, "read_query", map[string]any{"query": "SELECT detail FROM query_log WHERE tool = 'destructive_query' ORDER BY id DESC LIMIT 1"})
}

func countNotes(t *testing.T, env *harness.Env) string {
	t.Helper()
	return env.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM notes"})
}

func TestConfirmAcceptRunsWithTheMeasuredQuestion(t *testing.T) {
	a := &asker{answer: accept(map[string]any{"run": true})}
	env, _ := confirmEnv(t, domain.ConfirmSettings{}, a)
	out := env.MustCall(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id < 3", "reason": "drop the two oldest notes"})
	assert.Contains(t, out, "ok: 2 rows affected; approved by the person (client elicitation); snapshot: ")
	require.Len(t, a.asked(), 1)
	q := a.asked()[0]
	assert.Contains(t, q, "- table 'notes': 2 rows deleted")
	assert.Contains(t, q, "The agent's own reason (its words, not checked): \"drop the two oldest notes\"")
	assert.Contains(t, q, "DELETE FROM notes WHERE id < 3")
	assert.Contains(t, q, "mcp-sqlite-memory undo --db test.db")
	assert.Contains(t, q, "snapshots restore NAME --over --db test.db")
	assert.Equal(t, "n\n1\n# 1 rows", countNotes(t, env))
	row := lastConfirm(t, env)
	assert.Contains(t, row, `""outcome"": ""approved"", ""by"": ""client elicitation""`)
	assert.Contains(t, row, `""notes"": {""deleted"": 2, ""updated"": 0, ""inserted"": 0}`)
	assert.Equal(t, 1, snapshotCount(t, env.Dir))
}

func TestConfirmNoRunsNothing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  func() (*mcp.ElicitResult, error)
		message string
		outcome string
	}{
		{"Decline", func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "decline"}, nil }, "the person declined", "declined"},
		{"Cancel", func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "cancel"}, nil }, "the person cancelled the question", "cancelled"},
		{"Unticked", accept(map[string]any{"run": false}), "the person declined", "declined"},
		{"WrongType", accept(map[string]any{"run": "yes"}), "did not match the form", "invalid answer"},
		{"EmptyAccept", accept(nil), "did not match the form", "invalid answer"},
		{"ExtraField", accept(map[string]any{"run": true, "also": "drop everything"}), "did not match the form", "invalid answer"},
		{"UnknownAction", func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "sure"}, nil }, "did not match the form", "invalid answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &asker{answer: tc.answer}
			env, _ := confirmEnv(t, domain.ConfirmSettings{}, a)
			msg := env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM notes", "reason": "start over"})
			assert.True(t, strings.HasPrefix(msg, "destructive_query: "), msg)
			assert.Contains(t, msg, tc.message)
			assert.Contains(t, msg, "nothing was run and nothing changed")
			assert.Len(t, a.asked(), 1)
			assert.Equal(t, "n\n3\n# 1 rows", countNotes(t, env))
			assert.Equal(t, 0, snapshotCount(t, env.Dir), "a refused statement costs no snapshot")
			assert.Contains(t, lastConfirm(t, env), `""outcome"": ""`+tc.outcome+`""`)
		})
	}
}

func TestConfirmWithoutElicitationFallsBack(t *testing.T) {
	t.Run("Snapshot", func(t *testing.T) {
		env, _ := confirmEnv(t, domain.ConfirmSettings{Fallback: domain.FallbackSnapshot}, nil)
		out := env.MustCall(t, "destructive_query", map[string]any{"query": "DELETE FROM notes", "reason": "start over"})
		assert.Contains(t, out, "nobody was asked to approve it")
		assert.Equal(t, "n\n0\n# 1 rows", countNotes(t, env))
		assert.Contains(t, lastConfirm(t, env), `""outcome"": ""not asked"", ""by"": ""fallback""`)
	})
	t.Run("Refuse", func(t *testing.T) {
		env, _ := confirmEnv(t, domain.ConfirmSettings{Fallback: domain.FallbackRefuse}, nil)
		msg := env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM notes", "reason": "start over"})
		assert.Contains(t, msg, "needs a person's approval")
		assert.Contains(t, msg, "--confirm-fallback queue")
		assert.Equal(t, "n\n3\n# 1 rows", countNotes(t, env))
		assert.Equal(t, 0, snapshotCount(t, env.Dir))
		assert.Contains(t, lastConfirm(t, env), `""outcome"": ""refused"", ""by"": ""fallback""`)
	})
	t.Run("Off", func(t *testing.T) {
		a := &asker{answer: accept(map[string]any{"run": true})}
		env, _ := confirmEnv(t, domain.ConfirmSettings{Mode: domain.ConfirmOff, Fallback: domain.FallbackRefuse}, a)
		out := env.MustCall(t, "destructive_query", map[string]any{"query": "DELETE FROM notes", "reason": "start over"})
		assert.NotContains(t, out, "nobody")
		assert.Empty(t, a.asked())
		assert.Contains(t, lastConfirm(t, env), `""outcome"": ""not asked"", ""by"": ""nobody"", ""note"": ""--confirm off""`)
	})
}

// The question says what SQLite will do, not what the SQL seems to say:
// a trigger's writes, rows a trigger removes from another table, a CTE in
// front of the DELETE, a dropped table's rows and its indexes and
// triggers, a rename.
func TestConfirmQuestionNamesWhatReallyHappens(t *testing.T) {
	a := &asker{answer: func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "decline"}, nil }}
	env, _ := confirmEnv(t, domain.ConfirmSettings{}, a)
	for _, q := range []string{
		"CREATE TABLE items (id INTEGER PRIMARY KEY, note_id INTEGER, what TEXT)",
		"INSERT INTO items (note_id, what) VALUES (1, 'x'), (1, 'y'), (2, 'z'), (3, 'w')",
		"CREATE TABLE trash (title TEXT)",
		"CREATE INDEX items_note ON items(note_id)",
	} {
		env.MustCall(t, "write_query", map[string]any{"query": q})
	}
	a.answer = accept(map[string]any{"run": true})
	env.MustCall(t, "destructive_query", map[string]any{"reason": "cascade by hand", "query": "CREATE TRIGGER notes_gone AFTER DELETE ON notes BEGIN " +
		"DELETE FROM items WHERE note_id = OLD.id; INSERT INTO trash VALUES (OLD.title); END"})
	a.answer = func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "decline"}, nil }
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"DELETE FROM notes WHERE id = 1", []string{"- table 'items': 2 rows deleted", "- table 'notes': 1 row deleted", "- table 'trash': 1 row added", "'notes_gone'"}},
		{"WITH old AS (SELECT id FROM notes WHERE id <= 2) DELETE FROM notes WHERE id IN old", []string{"- table 'items': 3 rows deleted", "- table 'notes': 2 rows deleted", "- table 'trash': 2 rows added"}},
		{"DROP TABLE items", []string{"- table 'items' is dropped (it holds 4 rows)", "- index 'items_note' is dropped"}},
		{"DROP TABLE notes", []string{"- table 'notes' is dropped (it holds 3 rows)", "- trigger 'notes_gone' is dropped"}},
		{"ALTER TABLE trash RENAME TO bin", []string{"- table 'trash' is renamed to 'bin'"}},
		{"ALTER TABLE items DROP COLUMN what", []string{"- table 'items' is altered (it holds 4 rows)"}},
		{"UPDATE notes SET title = upper(title)", []string{"- table 'notes': 3 rows changed"}},
	} {
		before := len(a.asked())
		env.MustFail(t, "destructive_query", map[string]any{"query": tc.sql, "reason": "just one note"})
		asked := a.asked()
		require.Len(t, asked, before+1, tc.sql)
		for _, w := range tc.want {
			assert.Contains(t, asked[len(asked)-1], w, tc.sql)
		}
	}
	assert.Equal(t, "n\n3\n# 1 rows", countNotes(t, env), "every question was declined")
	// Nothing to change: nothing to ask.
	before := len(a.asked())
	out := env.MustCall(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 99", "reason": "none"})
	assert.True(t, strings.HasPrefix(out, "ok: 0 rows affected; snapshot: "), out)
	assert.Len(t, a.asked(), before)
}

// A yes covers what the person was shown: when the database changes while
// they read, a run that would delete more is rolled back, and one that
// deletes fewer says so.
func TestConfirmApprovalBoundsTheRealRun(t *testing.T) {
	a := &asker{}
	env, _ := confirmEnv(t, domain.ConfirmSettings{}, a)
	other, err := sql.Open("sqlite", env.DBPath)
	require.NoError(t, err)
	defer other.Close()
	a.answer = func() (*mcp.ElicitResult, error) {
		// Another program writes while the person reads the question.
		_, err := other.Exec("INSERT INTO notes (title) VALUES ('alpha2'), ('alpha3')")
		require.NoError(t, err)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"run": true}}, nil
	}
	msg := env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE title LIKE 'alpha%'", "reason": "drop alpha"})
	assert.Contains(t, msg, "would now delete or change 3 rows, more than the 1 the person approved")
	assert.Contains(t, a.asked()[0], "- table 'notes': 1 row deleted")
	assert.Equal(t, "n\n5\n# 1 rows", countNotes(t, env), "rolled back")

	a.answer = func() (*mcp.ElicitResult, error) {
		_, err := other.Exec("DELETE FROM notes WHERE title = 'alpha3'")
		require.NoError(t, err)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"run": true}}, nil
	}
	out := env.MustCall(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE title LIKE 'alpha%'", "reason": "drop alpha"})
	assert.Contains(t, out, "ok: 2 rows affected; approved by the person (client elicitation); snapshot: ")
	assert.Contains(t, out, "; note: it changed 2 rows, not the 3 the person was shown (the database changed in between)")
}

// --confirm writes also asks before a write_query that changes or deletes
// rows (REPLACE's overwrites and a trigger's included) and before
// create_view replaces a view; plain inserts and new objects run as ever.
func TestConfirmWritesAsksBeforeOverwrites(t *testing.T) {
	a := &asker{answer: func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "decline"}, nil }}
	env, _ := confirmEnv(t, domain.ConfirmSettings{Mode: domain.ConfirmWrites}, a)
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO notes (title) VALUES ('delta')"})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE tags (note_id INTEGER, tag TEXT)"})
	env.MustCall(t, "create_view", map[string]any{"name": "titles", "select_sql": "SELECT title FROM notes", "description": "titles"})
	assert.Empty(t, a.asked(), "nothing that exists was changed")

	for _, tc := range []struct{ sql, want string }{
		{"UPDATE notes SET title = upper(title) WHERE id <= 2", "- table 'notes': 2 rows changed"},
		{"REPLACE INTO notes (id, title) VALUES (1, 'new')", "- table 'notes': 1 row deleted, 1 row added"},
	} {
		msg := env.MustFail(t, "write_query", map[string]any{"query": tc.sql})
		assert.Contains(t, msg, "write_query: the person declined", tc.sql)
		assert.Contains(t, a.asked()[len(a.asked())-1], tc.want, tc.sql)
		assert.Contains(t, a.asked()[len(a.asked())-1], "write_query takes no snapshot", tc.sql)
	}
	msg := env.MustFail(t, "create_view", map[string]any{"name": "titles", "select_sql": "SELECT id FROM notes", "description": "ids", "replace": true})
	assert.Contains(t, msg, "create_view: the person declined")
	assert.Contains(t, a.asked()[len(a.asked())-1], "- view 'titles' is altered")
	assert.Contains(t, a.asked()[len(a.asked())-1], "SELECT title FROM notes", "the person sees the definition it replaces")
	assert.Equal(t, "title\nalpha\nbeta\ngamma\ndelta\n# 4 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT title FROM titles"}))

	a.answer = accept(map[string]any{"run": true})
	assert.Equal(t, "ok: 2 rows affected; approved by the person (client elicitation)",
		env.MustCall(t, "write_query", map[string]any{"query": "UPDATE notes SET title = upper(title) WHERE id <= 2"}))
	assert.Contains(t, env.MustCall(t, "create_view", map[string]any{"name": "titles", "select_sql": "SELECT id FROM notes", "description": "ids", "replace": true}), "replaced")
}

// A virtual table's rows are counted when the statement itself writes it,
// and named as uncounted when a trigger does; a dry run that cannot finish
// within the deadline reports lower bounds and says why.
func TestConfirmQuestionVirtualTablesAndUnfinishedTrials(t *testing.T) {
	a := &asker{answer: func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "decline"}, nil }}
	l := domain.DefaultLimits()
	l.QueryTimeout = time.Second
	env, _ := confirmEnvAt(t, harness.Config{Limits: l}, a, "2025-11-25", nil)
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE VIRTUAL TABLE docs USING fts5(body)"})
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO docs (body) VALUES ('one'), ('two'), ('three')"})
	env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM docs WHERE body <> 'two'", "reason": "trim"})
	assert.Contains(t, a.asked()[0], "- virtual table 'docs': 2 rows deleted")
	assert.NotContains(t, a.asked()[0], "docs_data", "shadow tables are shown as their virtual table")

	a.answer = accept(map[string]any{"run": true})
	env.MustCall(t, "destructive_query", map[string]any{"reason": "index titles", "query": "CREATE TRIGGER notes_fts AFTER DELETE ON notes BEGIN INSERT INTO docs (body) VALUES (OLD.title); END"})
	a.answer = func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "decline"}, nil }
	env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "one"})
	q := a.asked()[len(a.asked())-1]
	assert.Contains(t, q, "- table 'notes': 1 row deleted")
	assert.Contains(t, q, "- virtual table 'docs': rows written by a trigger")

	slow := "DELETE FROM notes WHERE id IN (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT x FROM c)"
	env.MustFail(t, "destructive_query", map[string]any{"query": slow, "reason": "all of them"})
	q = a.asked()[len(a.asked())-1]
	assert.Contains(t, q, "the measurement did not finish (the trial run stopped at the 1s deadline (--query-timeout) before the statement finished), so the counts are lower bounds")
	assert.Equal(t, "n\n3\n# 1 rows", countNotes(t, env))
}

// A client that goes away while its person reads is a no.
func TestConfirmClientGoneIsANo(t *testing.T) {
	asked, end := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(end) })
	a := &asker{answer: func() (*mcp.ElicitResult, error) {
		close(asked)
		<-end // the person never answers; the client goes away
		return nil, context.Canceled
	}}
	server, env := harness.Server(t, harness.Config{})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	defer ss.Close()
	leaving := &closable{Transport: ct}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "leaver", Version: "test"}, &mcp.ClientOptions{ElicitationHandler: a.handle}).
		Connect(context.Background(), leaving, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	harness.Call(t, cs, "write_query", map[string]any{"query": "CREATE TABLE t (id INTEGER PRIMARY KEY)"})
	harness.Call(t, cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES (1)"})
	go func() {
		<-asked
		_ = leaving.conn.Close() // the client's process dies: its end of the pipe closes
	}()
	_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "destructive_query", Arguments: map[string]any{"query": "DELETE FROM t", "reason": "x"}})
	// A second client sees what happened.
	st2, ct2 := mcp.NewInMemoryTransports()
	ss2, err := server.Connect(context.Background(), st2, nil)
	require.NoError(t, err)
	defer ss2.Close()
	env.Client = harness.Connect(t, ct2)
	var row string
	// the call's row is written once the server sees the client gone
	for deadline := time.Now().Add(slack.Of(4 * time.Second)); time.Now().Before(deadline); {
		row = lastConfirm(t, env)
		if strings.Contains(row, "client gone") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	assert.Contains(t, row, `""outcome"": ""client gone""`)
	assert.Equal(t, "n\n1\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM t"}))
}

// closable is a client transport whose connection the test can cut.
type closable struct {
	mcp.Transport
	conn mcp.Connection
}

func (c *closable) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	c.conn = conn
	return conn, err
}

// A client that sent a progress token hears that the call waits for a
// person while it waits.
func TestConfirmWaitReportsProgress(t *testing.T) {
	heard := make(chan string, 16)
	server, env := harness.Server(t, harness.Config{})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	defer ss.Close()
	cs := harness.ConnectWith(t, ct, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			heard <- req.Params.Message
		},
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			for {
				select {
				case m := <-heard:
					if strings.Contains(m, "waiting up to 300s for a person to approve the statement") {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"run": true}}, nil
					}
				case <-time.After(callTimeoutForTests):
					return &mcp.ElicitResult{Action: "decline"}, nil // no progress came: the test fails below
				}
			}
		},
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	env.Client = cs
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE t (id INTEGER PRIMARY KEY)"})
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO t VALUES (1)"})
	p := &mcp.CallToolParams{Name: "destructive_query", Arguments: map[string]any{"query": "DELETE FROM t", "reason": "x"}}
	p.SetProgressToken("wait")
	res, err := cs.CallTool(context.Background(), p)
	require.NoError(t, err)
	assert.False(t, res.IsError, "approved once the wait was reported")
}

// callTimeoutForTests bounds a wait that only a broken server reaches.
const callTimeoutForTests = 20 * time.Second

// A foreign key's ON DELETE CASCADE does nothing on this server's
// connections (foreign keys are off), and the question says what really
// happens: the parent's rows go, the children stay.
func TestConfirmQuestionShowsWhatACascadeReallyDoes(t *testing.T) {
	a := &asker{answer: func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "decline"}, nil }}
	env, _ := confirmEnv(t, domain.ConfirmSettings{}, a)
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE parts (id INTEGER PRIMARY KEY, note_id INTEGER REFERENCES notes(id) ON DELETE CASCADE)"})
	env.MustCall(t, "write_query", map[string]any{"query": "INSERT INTO parts (note_id) VALUES (1), (1)"})
	env.MustFail(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "one"})
	q := a.asked()[0]
	assert.Contains(t, q, "- table 'notes': 1 row deleted")
	assert.NotContains(t, q, "'parts'")
	a.answer = accept(map[string]any{"run": true})
	env.MustCall(t, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "one"})
	assert.Equal(t, "n\n2\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM parts"}), "what the question said")
}
