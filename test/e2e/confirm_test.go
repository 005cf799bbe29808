package e2e_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// startAsking runs the binary with a client that answers elicitations with
// answer, on the revision where the server asks while the call runs.
func startAsking(t *testing.T, db string, answer func(*mcp.ElicitRequest) *mcp.ElicitResult) *mcp.ClientSession {
	t.Helper()
	cmd := e2e.Command(bin, "--db", db)
	stderr := &e2e.Buffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-asking", Version: "test"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return answer(req), nil },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err, "stderr: %s", stderr)
	t.Cleanup(func() {
		_ = cs.Close()
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr)
		}
	})
	return cs
}

// The built binary asks over stdio, through its frame guard, and the
// person's answer decides.
func TestBinaryAsksBeforeDestructiveSQL(t *testing.T) {
	db := newDB(t)
	var asked []string
	yes := true
	cs := startAsking(t, db, func(req *mcp.ElicitRequest) *mcp.ElicitResult {
		asked = append(asked, req.Params.Message)
		if yes {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"run": true}}
		}
		return &mcp.ElicitResult{Action: "decline"}
	})
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE t (id INTEGER PRIMARY KEY)"})
	mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES (1), (2), (3)"})
	yes = false
	assert.Contains(t, mustFail(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM t", "reason": "reset"}), "the person declined")
	yes = true
	assert.Contains(t, mustCall(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM t WHERE id > 1", "reason": "trim"}), "ok: 2 rows affected; approved by the person")
	require.Len(t, asked, 2)
	assert.Contains(t, asked[0], "- table 't': 3 rows deleted")
	assert.Contains(t, asked[1], "- table 't': 2 rows deleted")
	assert.Equal(t, "n\n1\n# 1 rows", mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM t"}))
}

// pendingIDs runs `pending --json` in its own process.
func pendingIDs(t *testing.T, db string) []int64 {
	t.Helper()
	out := runBinary(t, nil, "pending", "--db", db, "--json")
	require.Equal(t, 0, out.code, out.stderr)
	var doc struct {
		Pending []struct {
			ID       int64  `json:"id"`
			Question string `json:"question"`
		} `json:"pending"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &doc), out.stdout)
	var ids []int64
	for _, p := range doc.Pending {
		assert.Contains(t, p.Question, "- table 't': 3 rows deleted")
		ids = append(ids, p.ID)
	}
	return ids
}

// waitPending polls, in other processes, until the server has queued a
// question; the bound only keeps a broken server from hanging the test.
func waitPending(t *testing.T, db string) int64 {
	t.Helper()
	for end := time.Now().Add(callTimeout); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if ids := pendingIDs(t, db); len(ids) > 0 {
			require.Len(t, ids, 1)
			return ids[0]
		}
	}
	t.Fatal("no question appeared in the approval queue")
	return 0
}

// With a client that cannot ask and --confirm-fallback queue, the call
// waits while a person decides from another terminal (another process),
// and the agent cannot decide it through SQL.
func TestApprovalQueueDecidedFromTheCLI(t *testing.T) {
	for _, approve := range []bool{true, false} {
		t.Run("approve="+strconv.FormatBool(approve), func(t *testing.T) {
			db := newDB(t)
			p := start(t, db, "--confirm-fallback", "queue")
			cs := p.Session
			mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE t (id INTEGER PRIMARY KEY)"})
			mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES (1), (2), (3)"})
			assert.Equal(t, 0, runBinary(t, nil, "pending", "--db", db).code)

			type result struct {
				out   string
				isErr bool
				err   error
			}
			done := make(chan result, 1)
			go func() {
				out, isErr, err := call(cs, "destructive_query", map[string]any{"query": "DELETE FROM t", "reason": "start over"})
				done <- result{out, isErr, err}
			}()
			id := waitPending(t, db)
			// The agent's second session cannot approve its own question,
			// but it can read the queue, and other calls are served.
			other := start(t, db)
			idText := strconv.FormatInt(id, 10)
			for _, q := range []string{
				"INSERT INTO mcp_approval_decisions (approval_id, ts, decision, decided_by) VALUES (" + idText + ", '2026-01-01T00:00:00Z', 'approved', 'me')",
				"UPDATE mcp_approvals SET expires = '9999' WHERE id = " + idText,
			} {
				assert.Contains(t, mustFail(t, other.Session, "write_query", map[string]any{"query": q}), "managed by the server")
				assert.Contains(t, mustFail(t, other.Session, "destructive_query", map[string]any{"query": q, "reason": "self-approve"}), "managed by the server")
			}
			assert.Contains(t, mustCall(t, other.Session, "read_query", map[string]any{"query": "SELECT id FROM mcp_approvals"}), idText)
			require.Equal(t, []int64{id}, pendingIDs(t, db), "still waiting")

			verb := "deny"
			if approve {
				verb = "approve"
			}
			out := runBinary(t, nil, verb, idText, "--db", db)
			require.Equal(t, 0, out.code, out.stderr)
			assert.Contains(t, out.stdout, "question "+idText)
			r := <-done
			require.NoError(t, r.err)
			count := mustCall(t, cs, "read_query", map[string]any{"query": "SELECT count(*) AS n FROM t"})
			if approve {
				assert.False(t, r.isErr, r.out)
				assert.Contains(t, r.out, "ok: 3 rows affected; approved by the person (queue via CLI)")
				assert.Equal(t, "n\n0\n# 1 rows", count)
			} else {
				assert.True(t, r.isErr, r.out)
				assert.Contains(t, r.out, "the person declined")
				assert.Equal(t, "n\n3\n# 1 rows", count)
			}
			// A decided question cannot be decided again.
			again := runBinary(t, nil, "approve", idText, "--db", db)
			assert.Equal(t, 1, again.code)
			assert.Contains(t, again.stderr, "not waiting")
			logged := runBinary(t, nil, "log", "--db", db, "--tool", verb, "--json")
			assert.Contains(t, logged.stdout, `"approval_id": `+idText, "log --json gives detail as an object")
			row := mustCall(t, cs, "read_query", map[string]any{"query": "SELECT detail FROM query_log WHERE tool = 'destructive_query' ORDER BY id DESC LIMIT 1"})
			assert.Contains(t, row, `""by"": ""queue via CLI""`)
		})
	}
}

// Over Streamable HTTP the question reaches the client too, on both
// revisions: elicitation/create on the call's own stream before
// 2026-07-28, an input request in the result after.
func TestBinaryAsksOverHTTP(t *testing.T) {
	s := httpStart(t, newDB(t), nil)
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			var asked []string
			client := mcp.NewClient(&mcp.Implementation{Name: "e2e-http-asking", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					return &mcp.ElicitResult{Action: "decline"}, nil
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url(), DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err, "server stderr:\n%s", s.stderr.String())
			defer cs.Close()
			mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY)"})
			mustCall(t, cs, "write_query", map[string]any{"query": "INSERT INTO t VALUES (NULL), (NULL)"})
			assert.Contains(t, mustFail(t, cs, "destructive_query", map[string]any{"query": "DROP TABLE t", "reason": "gone"}), "the person declined")
			require.Len(t, asked, 1)
			assert.Contains(t, asked[0], "- table 't' is dropped (it holds ")
			assert.Contains(t, asked[0], "--db mem.db", "the file by its base name only")
		})
	}
}
