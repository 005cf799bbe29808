package e2e_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TestDeclDefaultsUnderSmallLimits: a default written twice once made
// get_resume_context {} fail under a small --max-rows. Through the binary:
// with --max-rows below get_resume_context's usual 50 events, every tool
// that needs no argument answers {} (its declared defaults), in the
// writable and the read-only server.
func TestDeclDefaultsUnderSmallLimits(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	for _, mode := range []struct {
		name string
		args []string
	}{{"writable", nil}, {"read-only", []string{"--read-only"}}} {
		t.Run(mode.name, func(t *testing.T) {
			p := start(t, db, append([]string{"--max-rows", "5", "--default-limit", "5"}, mode.args...)...)
			if mode.args == nil {
				for range 7 {
					mustCall(t, p.Session, domain.ToolAppendEvent, map[string]any{"content": "e"})
				}
			}
			list, err := p.Session.ListTools(context.Background(), nil)
			require.NoError(t, err)
			tried := 0
			for _, tool := range list.Tools {
				schema, _ := tool.InputSchema.(map[string]any)
				if req, _ := schema["required"].([]any); len(req) > 0 {
					continue
				}
				tried++
				out, isErr, err := call(p.Session, tool.Name, map[string]any{})
				require.NoError(t, err, tool.Name)
				assert.False(t, isErr, "%s {} under --max-rows 5: %s", tool.Name, out)
			}
			assert.GreaterOrEqual(t, tried, 4, "list_tables, get_schema, verify_chain and get_resume_context take no required argument")
			mustCall(t, p.Session, domain.ToolGetResumeContext, nil)
		})
	}
}
