package tools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// toolsListBudget is what tools/list may cost an agent's context, in o200k
// tokens: every tool's description, title, annotations and schema, as the
// default server lists them. An agent pays it in every session before its
// first call (docs/decisions.md#tools-list-budget).
const toolsListBudget = 2500

// TestToolsListFitsItsTokenBudget measures the whole tools/list result with
// the o200k tokenizer (offline: the BPE ranks are embedded) and fails when
// it grows past the budget.
func TestToolsListFitsItsTokenBudget(t *testing.T) {
	env := harness.New(t, harness.Config{})
	list, err := env.Client.ListTools(context.Background(), nil)
	require.NoError(t, err)
	raw, err := json.Marshal(list)
	require.NoError(t, err)
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	require.NoError(t, err)
	n := len(enc.Encode(string(raw), nil, nil))
	t.Logf("tools/list: %d tools, %d bytes, %d o200k tokens (budget %d)", len(list.Tools), len(raw), n, toolsListBudget)
	for _, tool := range list.Tools {
		b, err := json.Marshal(tool)
		require.NoError(t, err)
		t.Logf("  %-20s %4d tokens", tool.Name, len(enc.Encode(string(b), nil, nil)))
	}
	assert.LessOrEqual(t, n, toolsListBudget, "tools/list grew past its budget: shorten a description rather than raise it")
}
