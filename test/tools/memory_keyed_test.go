package tools_test

import (
	"bytes"
	"database/sql"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

func chainKey(t *testing.T, b byte) *domain.ChainKey {
	t.Helper()
	k, err := domain.NewChainKey(bytes.Repeat([]byte{b}, 32))
	require.NoError(t, err)
	return k
}

// forgeRewrite is what someone with the file and without the key can do:
// drop the triggers, edit event id's content, recompute every hash from
// there on, so that the reference's rule verifies the chain again.
func forgeRewrite(t *testing.T, path string, id int64, content string) {
	t.Helper()
	u := url.URL{Scheme: "file", Path: path, RawQuery: "_pragma=busy_timeout(5000)"}
	db, err := sql.Open("sqlite", u.String())
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec("DROP TRIGGER memory_events_no_update")
	require.NoError(t, err)
	rows, err := db.Query("SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events ORDER BY id")
	require.NoError(t, err)
	var chain []domain.Event
	for rows.Next() {
		var e domain.Event
		require.NoError(t, rows.Scan(&e.ID, &e.TS, &e.Session, &e.Kind, &e.Content, &e.PrevHash, &e.Hash))
		chain = append(chain, e)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	for i := range chain {
		if chain[i].ID == id {
			chain[i].Content = content
		}
		if i > 0 {
			chain[i].PrevHash = chain[i-1].Hash
		}
		chain[i].Hash = chain[i].ComputeHash()
		_, err := db.Exec("UPDATE memory_events SET content = ?, prev_hash = ?, hash = ? WHERE id = ?",
			chain[i].Content, chain[i].PrevHash, chain[i].Hash, chain[i].ID)
		require.NoError(t, err)
	}
}

// TestKeyedChainDetectsAForgedRewrite: a rewrite with every hash
// recomputed verifies under the reference's rule, so without a key it is
// invisible; with the key it is a break, and so is removing the
// signatures or adding events behind the server's back.
func TestKeyedChainDetectsAForgedRewrite(t *testing.T) {
	t.Parallel()
	key := chainKey(t, 9)
	signed := harness.New(t, harness.Config{ChainKey: key})
	memAppendNotes(t, signed, "event", 4)
	out := signed.MustCall(t, "verify_chain", nil)
	assert.Contains(t, out, `"ok": true`)
	assert.Contains(t, out, `"signature": "verified", "key": "`+key.ID()+`", "signed_id": 4}`)

	forgeRewrite(t, signed.DBPath, 2, "the agent decided to delete production")
	unkeyed := harness.New(t, harness.Config{DBPath: signed.DBPath})
	out = unkeyed.MustCall(t, "verify_chain", nil)
	assert.True(t, strings.HasPrefix(out, `{"ok": true, "events": 4, "head_id": 4`), "without the key the forgery verifies: %s", out)
	assert.Contains(t, out, `"signature": "unchecked", "key": "`+key.ID()+`", "signed_id": 4}`)

	out = signed.MustCall(t, "verify_chain", nil)
	assert.Contains(t, out, `"ok": false`)
	assert.Contains(t, out, `"signature": "broken", "key": "`+key.ID()+`", "signed_id": 4, "break_at_id": 4, "reason": "event 4 no longer has the hash key `+key.ID()+` signed: the chain was rewritten and its hashes recomputed"}`)
	assert.Contains(t, signed.MustCall(t, "get_resume_context", nil), "chain BROKEN at event 4: event 4 no longer has the hash key")

	other := harness.New(t, harness.Config{DBPath: signed.DBPath, ChainKey: chainKey(t, 10)})
	assert.Contains(t, other.MustCall(t, "verify_chain", nil), "is signed by key "+key.ID()+", not by this server's key")
}

func TestKeyedChainUnsignedTailAndRemovedSignatures(t *testing.T) {
	t.Parallel()
	key := chainKey(t, 9)
	signed := harness.New(t, harness.Config{ChainKey: key})
	memAppendNotes(t, signed, "event", 2)
	signed.MustCall(t, "checkpoint", map[string]any{"summary": "two in"})
	assert.Contains(t, signed.MustCall(t, "verify_chain", nil), `"signature": "verified"`)

	// An event appended by a server without the key: not signed.
	unkeyed := harness.New(t, harness.Config{DBPath: signed.DBPath})
	memAppendNotes(t, unkeyed, "unsigned", 1)
	out := signed.MustCall(t, "verify_chain", nil)
	assert.Contains(t, out, `"ok": false`)
	assert.Contains(t, out, `"reason": "events 5 to 5 were stored without the chain key's signature (signed up to event 4)`)

	// The next keyed append signs the head again.
	memAppendNotes(t, signed, "signed again", 1)
	assert.Contains(t, signed.MustCall(t, "verify_chain", nil), `"ok": true`)

	memTamper(t, signed.DBPath, "DROP TRIGGER memory_head_signatures_no_delete", "DELETE FROM memory_head_signatures")
	out = signed.MustCall(t, "verify_chain", nil)
	assert.Contains(t, out, `"ok": false`)
	assert.Contains(t, out, `"break_at_id": 1, "reason": "the chain's head is not signed`)
	assert.NotContains(t, unkeyed.MustCall(t, "verify_chain", nil), "signature", "without a key and without signatures: as today")
}

// TestTheAgentCannotTouchSignatures: the signatures are a server table,
// protected from agent SQL like the chain itself.
func TestTheAgentCannotTouchSignatures(t *testing.T) {
	t.Parallel()
	env := harness.New(t, harness.Config{ChainKey: chainKey(t, 9)})
	memAppendNotes(t, env, "event", 1)
	for _, q := range []string{
		"INSERT INTO memory_head_signatures VALUES (2, 'x', 'y', 'z')",
		"DELETE FROM memory_head_signatures",
		"UPDATE memory_head_signatures SET mac = 'x'",
	} {
		tool := "write_query"
		if strings.HasPrefix(q, "DELETE") {
			tool = "destructive_query"
		}
		env.MustFail(t, tool, map[string]any{"query": q})
	}
	assert.Contains(t, env.MustCall(t, "verify_chain", nil), `"signature": "verified"`)
}
