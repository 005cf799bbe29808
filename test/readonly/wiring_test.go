package readonly_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// The harness wires read-only mode as the binary does: without --audit-db
// every call, refused ones included, leaves one JSON line on stderr.
func TestReadOnlyAuditLinesGoToStderr(t *testing.T) {
	dir := filepath.Join(t.TempDir(), folderName)
	path := filepath.Join(dir, "shop.db")
	shopFixtures[0].make(t, path, newShop())
	env := harness.New(t, harness.Config{DBPath: path, ReadOnly: true})
	env.MustCall(t, "list_tables", nil)
	env.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) FROM customers"})
	env.MustFail(t, "read_query", map[string]any{"query": "DELETE FROM customers"})
	var tools []string
	var oks []bool
	for _, line := range strings.Split(strings.TrimSpace(env.Stderr.String()), "\n") {
		var e struct {
			Tool string `json:"tool"`
			OK   bool   `json:"ok"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &e), "every stderr line is one audit entry: %q", line)
		tools, oks = append(tools, e.Tool), append(oks, e.OK)
	}
	assert.Equal(t, []string{"list_tables", "read_query", "read_query"}, tools)
	assert.Equal(t, []bool{true, true, false}, oks)
}
