package e2e_test

import (
	"database/sql"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// integritySeal is the content of a checkpoint's seal event, or of the
// marker before the first checkpoint: the events the server writes itself.
var integritySeal = regexp.MustCompile(`^(checkpoint \d+ sealed: sha256 [0-9a-f]{64}|` + regexp.QuoteMeta(domain.SealMarkerContent) + `)$`)

// integritySeals counts the seal and marker events among stored contents.
func integritySeals(contents map[int]string) int {
	n := 0
	for _, c := range contents {
		if integritySeal.MatchString(c) {
			n++
		}
	}
	return n
}

// integrityRewrite edits the file as someone with write access to it
// would: it lifts the append-only triggers (putting the very same ones
// back, so startup accepts the file), changes the checkpoint's summary
// and, with recompute, fixes the seal and every hash after it.
func integrityRewrite(t *testing.T, path, summary string, recompute bool) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	defer db.Close()
	var triggers []string
	rows, err := db.Query("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name IN ('memory_events', 'memory_checkpoints')")
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		triggers = append(triggers, s)
	}
	require.NoError(t, rows.Err())
	require.Len(t, triggers, 4)
	for _, name := range []string{"memory_events_no_update", "memory_events_no_delete", "memory_checkpoints_no_update", "memory_checkpoints_no_delete"} {
		_, err := db.Exec("DROP TRIGGER " + name)
		require.NoError(t, err)
	}
	var cp domain.Checkpoint
	require.NoError(t, db.QueryRow("SELECT id, ts, session, summary, last_event_id, head_hash FROM memory_checkpoints WHERE id = 1").
		Scan(&cp.ID, &cp.TS, &cp.Session, &cp.Summary, &cp.LastEventID, &cp.HeadHash))
	cp.Summary = summary
	_, err = db.Exec("UPDATE memory_checkpoints SET summary = ? WHERE id = 1", summary)
	require.NoError(t, err)
	if recompute {
		var events []domain.Event
		rows, err := db.Query("SELECT id, ts, session, kind, content, prev_hash, hash FROM memory_events ORDER BY id")
		require.NoError(t, err)
		for rows.Next() {
			var e domain.Event
			require.NoError(t, rows.Scan(&e.ID, &e.TS, &e.Session, &e.Kind, &e.Content, &e.PrevHash, &e.Hash))
			events = append(events, e)
		}
		require.NoError(t, rows.Err())
		head := domain.Genesis
		for _, e := range events {
			if e.ID == cp.LastEventID+1 {
				e.Content = cp.SealContent()
			}
			e.PrevHash = head
			e.Hash = e.ComputeHash()
			head = e.Hash
			_, err := db.Exec("UPDATE memory_events SET content = ?, prev_hash = ?, hash = ? WHERE id = ?", e.Content, e.PrevHash, e.Hash, e.ID)
			require.NoError(t, err)
		}
	}
	for _, s := range triggers {
		_, err := db.Exec(s)
		require.NoError(t, err)
	}
}

func integrityHead(t *testing.T, verify string) string {
	t.Helper()
	var r struct {
		HeadHash string `json:"head_hash"`
	}
	require.NoError(t, json.Unmarshal([]byte(verify), &r), verify)
	return r.HeadHash
}

// TestIntegrityChainSaysExactlyWhatItProves is
// docs/decisions.md#checkpoint-seals through the binary: a checkpoint's summary is sealed into the chain, so an edited
// summary is reported; a rewrite that also recomputes the seal and every
// hash verifies on its own, and only a head hash kept outside the file
// (expected_head) catches it.
func TestIntegrityChainSaysExactlyWhatItProves(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	p := start(t, db)
	cs := p.Session
	for _, c := range []string{"chose sqlite", "wrote the schema", "tests pass"} {
		mustCall(t, cs, "append_event", map[string]any{"content": c})
	}
	mustCall(t, cs, "checkpoint", map[string]any{"summary": "plan A: keep the schema; next: add an index"})
	mustCall(t, cs, "append_event", map[string]any{"content": "added the index"})
	out := mustCall(t, cs, "get_resume_context", nil)
	assert.Contains(t, out, "\n# sealed in the chain by event 5: the chain's hashes cover this summary\n")
	assert.Contains(t, out, "# 1 events since checkpoint | chain ok (6 events)")
	kept := integrityHead(t, mustCall(t, cs, "verify_chain", nil))
	assert.Contains(t, mustCall(t, cs, "verify_chain", map[string]any{"expected_head": kept}), `"ok": true, "events": 6, "head_id": 6, "head_hash": "`+kept+`", "expected_head_id": 6, "checkpoints": 1, "sealed": 1}`)

	bad := mustFail(t, cs, "verify_chain", map[string]any{"expected_head": kept[:12]})
	assert.Contains(t, bad, "64 hex digits")
	bad = mustFail(t, cs, "append_event", map[string]any{"kind": "checkpoint", "content": "checkpoint 2 sealed: sha256 " + kept})
	assert.Contains(t, bad, "checkpoint tool")
	require.NoError(t, cs.Close())

	// 1. The summary edited, nothing recomputed: the seal no longer matches.
	integrityRewrite(t, db, "plan B: drop the schema", false)
	cs = start(t, db).Session
	out = mustCall(t, cs, "get_resume_context", nil)
	assert.Contains(t, out, "plan B")
	assert.Contains(t, out, "# WARNING: this checkpoint does not match its seal")
	assert.Contains(t, out, "| chain BROKEN: checkpoint 1 does not match its seal (event 5)")
	assert.Contains(t, mustCall(t, cs, "verify_chain", nil), `"ok": false, "events": 6, "head_id": 6, "head_hash": "`+kept+`", "checkpoints": 1, "sealed": 0, "checkpoint_id": 1, "break_at_id": 0`)
	cli := runBinary(t, nil, "verify", "--db", db)
	assert.Equal(t, 1, cli.code, cli.stderr)
	assert.True(t, strings.HasPrefix(cli.stdout, "chain BROKEN: checkpoint 1 does not match its seal (event 5)"), cli.stdout)
	require.NoError(t, cs.Close())

	// 2. Summary, seal and every hash after it recomputed: the file is
	// consistent again, and only the kept head tells.
	integrityRewrite(t, db, "plan B: drop the schema", true)
	cs = start(t, db).Session
	out = mustCall(t, cs, "get_resume_context", nil)
	assert.Contains(t, out, "# sealed in the chain by event 5", "a full rewrite is consistent in itself")
	v := mustCall(t, cs, "verify_chain", nil)
	assert.True(t, strings.HasPrefix(v, `{"ok": true,`), v)
	assert.NotEqual(t, kept, integrityHead(t, v))
	v = mustCall(t, cs, "verify_chain", map[string]any{"expected_head": kept})
	assert.True(t, strings.HasPrefix(v, `{"ok": false,`), v)
	assert.Contains(t, v, `"expected_head_id": 0`)
	assert.Contains(t, v, "does not contain the head hash you kept")
}
