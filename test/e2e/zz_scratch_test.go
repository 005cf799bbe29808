package e2e_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestScratch(t *testing.T) {
	db := newDB(t)
	p := start(t, db)
	_, err := p.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	t.Logf("unknown tool err: %v", err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = p.Session.CallTool(ctx, &mcp.CallToolParams{Name: "read_query", Arguments: map[string]any{"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"}})
	cancel()
	t.Logf("cancel err: %v", err)
	for i := 0; i < 30; i++ {
		out, _, _ := call(p.Session, "read_query", map[string]any{"query": "SELECT tool, ok, duration_ms, error FROM query_log"})
		t.Logf("%s", out)
		time.Sleep(500 * time.Millisecond)
		if len(out) > 60 { break }
	}
	s := time.Now()
	for i := 0; i < 50; i++ { mustCall(t, p.Session, "append_event", map[string]any{"content": "x"}) }
	t.Logf("50 appends: %v", time.Since(s))
}
