package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// readmeHooks returns the hooks JSON block of README's "Add it to your
// agent" section: the hook commands by event.
func readmeHooks(t *testing.T) map[string]string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Add it to your agent\n")
	require.True(t, ok)
	section, _, _ = strings.Cut(section, "\n## ")
	i := strings.Index(section, "```json\n{\n  \"hooks\"")
	require.GreaterOrEqual(t, i, 0, "README gives the hooks configuration as a JSON block")
	block, _, _ := strings.Cut(section[i+len("```json\n"):], "\n```")
	var cfg struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal([]byte(block), &cfg), "README's hooks block is JSON")
	out := map[string]string{}
	for event, groups := range cfg.Hooks {
		require.Len(t, groups, 1, event)
		require.Len(t, groups[0].Hooks, 1, event)
		h := groups[0].Hooks[0]
		assert.Equal(t, "command", h.Type, event)
		out[event] = h.Command
	}
	return out
}

// runHook runs a hook command as Claude Code does (through the shell, in
// the project folder, CLAUDE_PROJECT_DIR set, the hook input on stdin),
// with the built binary first on PATH.
func runHook(t *testing.T, command, project, input string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = project
	cmd.Env = e2e.Env("CLAUDE_PROJECT_DIR="+project, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	require.NoError(t, ctx.Err())
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// TestREADMEHooksGiveClaudeCodeWhatItExpects runs the hook commands
// README's configuration names against a test database and checks that
// each prints the JSON its event takes.
func TestREADMEHooksGiveClaudeCodeWhatItExpects(t *testing.T) {
	t.Parallel()
	hooks := readmeHooks(t)
	require.Contains(t, hooks, "SessionStart")
	require.Contains(t, hooks, "PreCompact")
	for _, c := range hooks {
		require.True(t, strings.HasPrefix(c, "mcp-sqlite-memory "), "the hook runs the binary: %s", c)
	}
	project := t.TempDir()
	db := filepath.Join(project, "memory.db")

	// Before the server ever ran: no failure, a context that says so.
	out, stderr, code := runHook(t, hooks["SessionStart"], project, `{"hook_event_name":"SessionStart","source":"startup"}`)
	require.Equal(t, 0, code, stderr)
	var answer struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &answer), out)
	assert.Equal(t, "SessionStart", answer.HookSpecificOutput.HookEventName)
	assert.Contains(t, answer.HookSpecificOutput.AdditionalContext, "no memory yet")

	p := start(t, db)
	mustCall(t, p.Session, "append_event", map[string]any{"content": "picked the billing schema", "kind": "decision"})
	mustCall(t, p.Session, "checkpoint", map[string]any{"summary": "billing schema chosen; next: the migration"})
	mustCall(t, p.Session, "append_event", map[string]any{"content": "wrote migration 0001"})
	p.Cleanup(t)

	for _, source := range []string{"startup", "compact"} {
		out, stderr, code = runHook(t, hooks["SessionStart"], project,
			`{"session_id":"abc","transcript_path":"/tmp/t.jsonl","cwd":"`+project+`","hook_event_name":"SessionStart","source":"`+source+`"}`)
		require.Equal(t, 0, code, stderr)
		require.NoError(t, json.Unmarshal([]byte(out), &answer), out)
		assert.Equal(t, "SessionStart", answer.HookSpecificOutput.HookEventName)
		ctx := answer.HookSpecificOutput.AdditionalContext
		assert.Contains(t, ctx, "billing schema chosen; next: the migration", source)
		assert.Contains(t, ctx, "wrote migration 0001", source)
		assert.Equal(t, source == "compact", strings.Contains(ctx, "was compacted"), source)
		assert.Equal(t, 1, strings.Count(out, "\n"), "one JSON line")
	}

	out, stderr, code = runHook(t, hooks["PreCompact"], project,
		`{"session_id":"abc","transcript_path":"/tmp/t.jsonl","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":""}`)
	require.Equal(t, 0, code, stderr)
	var pre map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &pre), out)
	assert.Equal(t, []string{"systemMessage"}, keys(pre), "PreCompact takes only the common fields")
	assert.Contains(t, pre["systemMessage"], "1 events since checkpoint")

	// Input that is not the client's JSON fails the hook with status 1,
	// never 2 (which would ask the client to block).
	_, stderr, code = runHook(t, hooks["PreCompact"], project, "not json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not a JSON object")
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
