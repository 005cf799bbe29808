package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/webui"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// BenchmarkWebViewPages answers each page of the web view on a database
// with 100,000 chained events and 100,000 audit rows, through the wiring
// the ui command uses, after the chain was verified once as the ui command
// does at start. The page budget is 100 ms (docs/decisions.md#web-view);
// it is a benchmark, not a timed test.
func BenchmarkWebViewPages(b *testing.B) {
	db := bigDatabase(b, 100_000, 100_000)
	cfg := settings.Config{DBPath: db, Limits: domain.DefaultLimits()}
	cfg.Limits.Snapshots = 0
	ctx := context.Background()
	w, err := wire(ctx, cfg, cliLogger(cfg, io.Discard), io.Discard, newSession(time.Now()))
	require.NoError(b, err)
	defer w.Close()
	h := webui.New(webDeps(cfg, w, cliLogger(cfg, io.Discard), "bench"), webui.Options{Secret: "s"})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/ui/login?secret=s", nil))
	cookie := rec.Result().Cookies()[0]
	// The baseline: verify_chain alone, a whole walk: what the overview's
	// "verify now" button costs, and a visit after another process wrote.
	b.Run("verify_chain", func(b *testing.B) {
		for b.Loop() {
			if _, err := w.Service.VerifyChain(ctx, domain.VerifyChainRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The ui command walks the chain once as it starts (warmChain); the
	// pages then show it as remembered.
	_, err = w.Service.VerifiedChain(ctx)
	require.NoError(b, err)
	for _, page := range []string{"", "memory", "memory?q=needle", "memory?q=step+500", "memory?kind=decision&before=50000", "memory/event?id=50000",
		"memory/checkpoints", "audit", "audit?failures=1&tool=read_query", "audit/call?id=50000", "tables", "tables/rows?name=notes", "approvals"} {
		b.Run(strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "-").Replace("page_"+page), func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/ui/"+page, nil)
				req.AddCookie(cookie)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", page, rec.Code, rec.Body.String())
				}
			}
		})
	}
}

// bigDatabase makes a server database with events chained events (a
// checkpoint every 1000) and calls audit rows, a tenth of them failures.
func bigDatabase(b *testing.B, events, calls int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "big.db")
	cfg := settings.Config{DBPath: path, Limits: domain.DefaultLimits()}
	w, err := wire(context.Background(), cfg, cliLogger(cfg, io.Discard), io.Discard, "bench")
	require.NoError(b, err)
	w.Close()
	h, err := sql.Open("sqlite", path)
	require.NoError(b, err)
	defer h.Close()
	tx, err := h.Begin()
	require.NoError(b, err)
	prev := domain.Genesis
	kinds := []string{"note", "decision", "progress"}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= events; i++ {
		e := domain.Event{ID: int64(i), TS: domain.FormatTS(start.Add(time.Duration(i) * time.Second)), Session: "bench", Kind: kinds[i%3],
			Content: fmt.Sprintf("event %d: the agent did step %d of its plan and wrote it down", i, i), PrevHash: prev}
		e.Hash = e.ComputeHash()
		_, err := tx.Exec("INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)", e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash)
		require.NoError(b, err)
		prev = e.Hash
		if i%1000 == 0 {
			_, err := tx.Exec("INSERT INTO memory_checkpoints (ts, session, summary, last_event_id, head_hash) VALUES (?, 'bench', ?, ?, ?)", e.TS, fmt.Sprintf("after %d events", i), i, e.Hash)
			require.NoError(b, err)
		}
	}
	tools := []string{domain.ToolReadQuery, domain.ToolWriteQuery, domain.ToolAppendEvent, domain.ToolSearchText, domain.ToolDestructiveQuery}
	for i := 1; i <= calls; i++ {
		ok, errText := 1, any(nil)
		if i%10 == 0 {
			ok, errText = 0, "no such column: x"
		}
		_, err := tx.Exec("INSERT INTO query_log (ts, session, tool, query, ok, rows, error, duration_ms) VALUES (?, 'bench', ?, 'SELECT * FROM notes', ?, ?, ?, ?)",
			domain.FormatTS(start.Add(time.Duration(i)*time.Second)), tools[i%len(tools)], ok, i%200, errText, i%37)
		require.NoError(b, err)
	}
	_, err = tx.Exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
	require.NoError(b, err)
	for i := range 1000 {
		_, err := tx.Exec("INSERT INTO notes (body) VALUES (?)", fmt.Sprintf("note %d", i))
		require.NoError(b, err)
	}
	require.NoError(b, tx.Commit())
	return path
}
