package main

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/webui"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// webGet logs in to h with its one-time secret "s" once and returns a
// function that answers a page's body.
func webGet(t *testing.T, h http.Handler) func(path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/ui/login?secret=s", nil))
	require.Equal(t, http.StatusSeeOther, rec.Code)
	cookie := rec.Result().Cookies()[0]
	return func(path string) string {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/ui/"+path, nil)
		req.AddCookie(cookie)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return rec.Body.String()
	}
}

// The overview and the checkpoints page show the chain as the core last
// verified it: the first visit walks the whole chain, a visit after only
// this process wrote checks what it appended, and a change by another
// connection to the file is found by a whole walk on the next visit.
func TestWebViewChainStateFollowsTheFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	cfg := settings.Config{DBPath: db, Limits: domain.DefaultLimits()}
	cfg.Limits.Snapshots = 0
	ctx := context.Background()
	log := cliLogger(cfg, io.Discard)
	w, err := wire(ctx, cfg, log, io.Discard, newSession(time.Now()))
	require.NoError(t, err)
	defer w.Close()
	for _, c := range []string{"one", "two", "three"} {
		_, err := w.Service.AppendEvent(ctx, domain.AppendEventRequest{Content: c, Kind: "note"})
		require.NoError(t, err)
	}
	get := webGet(t, webui.New(webDeps(cfg, w, log, "test"), webui.Options{Secret: "s"}))

	body := get("")
	assert.Contains(t, body, "Intact: 3 events verified")
	assert.Contains(t, body, "The whole chain was walked for this page", "the first visit walks the whole chain")

	body = get("")
	assert.Contains(t, body, "Intact: 3 events verified")
	assert.Contains(t, body, "since then only this server wrote to the file", "nothing changed: nothing is walked again")

	_, err = w.Service.AppendEvent(ctx, domain.AppendEventRequest{Content: "four", Kind: "note"})
	require.NoError(t, err)
	body = get("")
	assert.Contains(t, body, "Intact: 4 events verified", "this process's append is checked on from the old head")
	assert.Contains(t, body, "since then only this server wrote to the file")

	// Another connection rewrites an old event (the append-only triggers
	// dropped first, as someone with the file could).
	h, err := sql.Open("sqlite", db)
	require.NoError(t, err)
	defer h.Close()
	for _, q := range []string{"DROP TRIGGER IF EXISTS memory_events_no_update", "UPDATE memory_events SET content = 'forged' WHERE id = 2"} {
		_, err := h.Exec(q)
		require.NoError(t, err, q)
	}
	body = get("")
	assert.Contains(t, body, "BROKEN at event", "another connection's change is found")
	assert.Contains(t, body, `href="/ui/memory/event?id=2"`, "the break is at the rewritten event")
	assert.Contains(t, body, "The whole chain was walked for this page")
	body = get("memory/checkpoints")
	assert.Contains(t, body, "The chain is broken")
	assert.False(t, strings.Contains(get(""), "Intact"), "a broken chain stays broken on the next visit")
}
