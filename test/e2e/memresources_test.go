package e2e_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// TestMemoryResourcesAndPromptsOverStdio: the built binary serves the
// resources, prompts, completions and resource subscriptions through its
// frame guard and its own connection, to the SDK's client.
func TestMemoryResourcesAndPromptsOverStdio(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	updated := make(chan string, 8)
	cmd := e2e.Command(bin, "--db", db)
	p := &e2e.Process{Cmd: cmd, Stderr: &e2e.Buffer{}}
	cmd.Stderr = p.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "test"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	require.NoError(t, err, p.Stderr.String())
	p.Session = cs
	p.Cleanup(t)

	mustCall(t, cs, "append_event", map[string]any{"content": "chose the importer design", "kind": "decision"})
	mustCall(t, cs, "checkpoint", map[string]any{"summary": "importer designed; next: write it"})

	res, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, res.Resources, 3)
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://checkpoints/latest"})
	require.NoError(t, err)
	assert.Contains(t, read.Contents[0].Text, "importer designed; next: write it")
	read, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://events/1"})
	require.NoError(t, err)
	assert.Contains(t, read.Contents[0].Text, "chose the importer design")

	prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "resume"})
	require.NoError(t, err)
	assert.Contains(t, prompt.Messages[0].Content.(*mcp.TextContent).Text, "importer designed")
	c, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "recall"},
		Argument: mcp.CompleteParamsArgument{Name: "kind", Value: "dec"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"decision"}, c.Completion.Values)

	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "memory://resume"}))
	mustCall(t, cs, "append_event", map[string]any{"content": "started the importer"})
	select {
	case uri := <-updated:
		assert.Equal(t, "memory://resume", uri)
	case <-ctx.Done():
		t.Fatal("no resources/updated notification")
	}
	log := mustCall(t, cs, "read_query", map[string]any{"query": "SELECT tool FROM query_log WHERE tool LIKE '%/%' ORDER BY id"})
	assert.Equal(t, "tool\nresources/read\nresources/read\nprompts/get\ncompletion/complete\n# 4 rows", log)
}
