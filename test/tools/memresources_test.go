package tools_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// memClient connects a client that records the resources/updated
// notifications it gets.
func memClient(t *testing.T, c harness.Config) (*harness.Env, chan string) {
	t.Helper()
	server, env := harness.Server(t, c)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	updated := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "resources-test", Version: "test"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	})
	cs, err := client.Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	env.Client = cs
	return env, updated
}

func readResource(t *testing.T, env *harness.Env, uri string) string {
	t.Helper()
	res, err := env.Client.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	require.NoError(t, err, uri)
	require.Len(t, res.Contents, 1)
	assert.Equal(t, uri, res.Contents[0].URI)
	return res.Contents[0].Text
}

// auditTools lists query_log's tool and query columns of the calls after id.
func auditTools(t *testing.T, env *harness.Env, after int) []string {
	t.Helper()
	out := env.MustCall(t, "read_query", map[string]any{"query": "SELECT tool || ' ' || coalesce(query, '') FROM query_log WHERE id > " + strconv.Itoa(after) + " AND tool <> 'read_query' ORDER BY id"})
	lines := strings.Split(out, "\n")
	return lines[1 : len(lines)-1]
}

// memLastLogID is the id of the newest query_log row.
func memLastLogID(t *testing.T, env *harness.Env) int {
	t.Helper()
	out := env.MustCall(t, "read_query", map[string]any{"query": "SELECT max(id) FROM query_log"})
	n, err := strconv.Atoi(strings.Split(out, "\n")[1])
	require.NoError(t, err, out)
	return n
}

func TestMemoryResourcesOverMCP(t *testing.T) {
	env, updated := memClient(t, harness.Config{})
	ctx := context.Background()
	env.MustCall(t, "append_event", map[string]any{"content": "the cache moved to redis", "kind": "decision"})
	env.MustCall(t, "checkpoint", map[string]any{"summary": "redis is in; next: the runbook"})
	env.MustCall(t, "write_query", map[string]any{"query": "CREATE TABLE notes (body TEXT)"})
	env.MustCall(t, "create_view", map[string]any{"name": "recent_notes", "select_sql": "SELECT body FROM notes", "description": "the notes, newest first"})

	list, err := env.Client.ListResources(ctx, nil)
	require.NoError(t, err)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
		assert.NotEmpty(t, r.Description, r.URI)
	}
	assert.Equal(t, []string{domain.ResourceCheckpoint, domain.ResourceResume, domain.ResourceViews}, uris)
	tpl, err := env.Client.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tpl.ResourceTemplates, 1)
	assert.Equal(t, "memory://events/{id}", tpl.ResourceTemplates[0].URITemplate)

	before := memLastLogID(t, env)
	resume := readResource(t, env, domain.ResourceResume)
	assert.Equal(t, env.MustCall(t, "get_resume_context", nil), resume, "the resume resource is get_resume_context with its defaults")
	assert.Contains(t, readResource(t, env, domain.ResourceCheckpoint), "redis is in; next: the runbook")
	assert.Contains(t, readResource(t, env, "memory://events/1"), "# event 1 | ")
	assert.Contains(t, readResource(t, env, "memory://events/1"), "the cache moved to redis")
	views := readResource(t, env, domain.ResourceViews)
	assert.Contains(t, views, "-- view recent_notes\n")
	assert.Contains(t, views, "-- description: the notes, newest first")

	_, err = env.Client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://events/99"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "there is no event 99")
	// A URI no resource or template matches is refused by the SDK before
	// anything is read: no stored data leaves, and there is no row.
	_, err = env.Client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://nothing"})
	require.Error(t, err)

	// Every read that reaches the store is audited, with its URI, the
	// failed ones too.
	assert.Equal(t, []string{
		"resources/read memory://resume", "get_resume_context ", "resources/read memory://checkpoints/latest",
		"resources/read memory://events/1", "resources/read memory://events/1", "resources/read memory://views",
		"resources/read memory://events/99",
	}, auditTools(t, env, before))

	// Subscribed clients hear of changes made through the tools.
	require.NoError(t, env.Client.Subscribe(ctx, &mcp.SubscribeParams{URI: domain.ResourceResume}))
	require.NoError(t, env.Client.Subscribe(ctx, &mcp.SubscribeParams{URI: domain.ResourceCheckpoint}))
	env.MustCall(t, "append_event", map[string]any{"content": "one more"})
	assert.Equal(t, domain.ResourceResume, recv(t, updated))
	env.MustCall(t, "checkpoint", map[string]any{"summary": "again"})
	got := []string{recv(t, updated), recv(t, updated)}
	assert.ElementsMatch(t, []string{domain.ResourceResume, domain.ResourceCheckpoint}, got)
	env.MustCall(t, "create_view", map[string]any{"name": "v2", "select_sql": "SELECT 1"})
	env.MustCall(t, "append_event", map[string]any{"content": "last"})
	assert.Equal(t, domain.ResourceResume, recv(t, updated), "views were not subscribed to: no notice for create_view")
	env.MustCall(t, "retract_event", map[string]any{"id": 1, "reason": "wrong"})
	assert.Equal(t, domain.ResourceResume, recv(t, updated), "a retraction changes the resume")
}

// recv waits for the next notification (the wait bounds a hang, it
// asserts no speed).
func recv(t *testing.T, ch chan string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("no resources/updated notification")
		return ""
	}
}

func TestMemoryPromptsAndCompletionsOverMCP(t *testing.T) {
	env, _ := memClient(t, harness.Config{})
	ctx := context.Background()
	env.MustCall(t, "append_event", map[string]any{"content": "chose sqlite", "kind": "decision"})
	env.MustCall(t, "append_event", map[string]any{"content": "wrote the schema", "kind": "result"})
	env.MustCall(t, "append_event", map[string]any{"content": "deploy failed", "kind": "debug"})
	env.MustCall(t, "checkpoint", map[string]any{"summary": "schema done; next: deploy"})

	list, err := env.Client.ListPrompts(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	assert.ElementsMatch(t, []string{"resume", "checkpoint", "recall"}, names)

	res, err := env.Client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "resume"})
	require.NoError(t, err)
	require.Len(t, res.Messages, 1)
	text := res.Messages[0].Content.(*mcp.TextContent).Text
	assert.Contains(t, text, "schema done; next: deploy")

	res, err = env.Client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "checkpoint"})
	require.NoError(t, err)
	text = res.Messages[0].Content.(*mcp.TextContent).Text
	assert.Contains(t, text, "with the checkpoint tool")
	assert.Contains(t, text, "schema done; next: deploy", "starts from the latest checkpoint")

	res, err = env.Client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "recall", Arguments: map[string]string{"query": "deploy", "kind": "debug"}})
	require.NoError(t, err)
	text = res.Messages[0].Content.(*mcp.TextContent).Text
	assert.Contains(t, text, "event,3,")
	assert.NotContains(t, text, "checkpoint,1,", "kind=debug keeps the debug event only")

	_, err = env.Client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "recall", Arguments: map[string]string{"query": "x", "bogus": "1"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "takes no argument")

	complete := func(prompt, arg, value string) []string {
		r, err := env.Client.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: prompt},
			Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
		require.NoError(t, err)
		return r.Completion.Values
	}
	assert.Equal(t, []string{"debug", "decision"}, complete("recall", "kind", "de"))
	assert.Equal(t, []string{"checkpoint", "debug", "decision", "result"}, complete("recall", "kind", ""))
	assert.Equal(t, []string{"debug,result"}, complete("resume", "exclude_kinds", "debug,r"), "a list completes its last item")
	assert.Equal(t, []string{memSession}, complete("recall", "session", "2026"))
	assert.Empty(t, complete("recall", "query", "x"), "free text has no completions")
}

// TestReadOnlyServerOffersNoCheckpointPrompt: read-only mode offers the
// reading prompts only.
func TestReadOnlyServerOffersNoCheckpointPrompt(t *testing.T) {
	w := harness.New(t, harness.Config{})
	w.MustCall(t, "append_event", map[string]any{"content": "x"})
	env, _ := memClient(t, harness.Config{DBPath: w.DBPath, ReadOnly: true})
	list, err := env.Client.ListPrompts(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	assert.ElementsMatch(t, []string{"resume", "recall"}, names)
}
