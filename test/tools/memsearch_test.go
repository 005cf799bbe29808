package tools_test

import (
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// memSearchCorpus appends testdata/memsearch-corpus.txt, one entry a
// second from 10:00:00Z: events 1..7, then checkpoint 1 (sealed by event 8).
func memSearchCorpus(t *testing.T) *harness.Env {
	t.Helper()
	env, clock := newMemEnv(t, 0)
	b, err := os.ReadFile("testdata/memsearch-corpus.txt")
	require.NoError(t, err)
	at := time.Date(2026, 9, 13, 10, 0, 0, 0, time.UTC)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		kind, content, ok := strings.Cut(line, "\t")
		require.True(t, ok, line)
		clock.set(t, domain.FormatTS(at))
		at = at.Add(time.Second)
		if kind == "checkpoint" {
			env.MustCall(t, "checkpoint", map[string]any{"summary": content})
		} else {
			env.MustCall(t, "append_event", map[string]any{"content": content, "kind": kind})
		}
	}
	return env
}

// memHits reads search_memory's CSV into "source:id" refs, best first,
// and returns the rows too.
func memHits(t *testing.T, out string) ([]string, [][]string) {
	t.Helper()
	var body []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "# ") {
			body = append(body, l)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(strings.Join(body, "\n"))).ReadAll()
	require.NoError(t, err, out)
	require.NotEmpty(t, rows, out)
	require.Equal(t, domain.MemoryHitColumns, rows[0])
	var refs []string
	for _, r := range rows[1:] {
		refs = append(refs, r[0]+":"+r[1])
	}
	return refs, rows[1:]
}

// TestSearchMemoryRanksByBM25 checks the order search_memory gives the
// corpus. Token counts are unicode61's (punctuation splits, "0042" is one
// token): event 2 has 12 tokens, 3 has 9, 5 has 10, 6 has 6, 7 has 9
// ("migration" three times) and the checkpoint 6.
func TestSearchMemoryRanksByBM25(t *testing.T) {
	env := memSearchCorpus(t)
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
		why  string
	}{
		{"term frequency and length", map[string]any{"query": "migration"},
			[]string{"event:7", "checkpoint:1", "event:6", "event:3", "event:5", "event:2"},
			"event 7 says migration three times; among the single mentions BM25 prefers the shorter text (6, 6, 9, 10, 12 tokens), " +
				"and the checkpoint and event 6, equal in length, tie: the newer (the checkpoint) comes first"},
		{"shorter beats newer", map[string]any{"query": "0042"},
			[]string{"event:3", "event:5"},
			"both say 0042 once; event 3 is shorter (9 tokens to 10), so it ranks first although event 5 is newer"},
		{"both words, then recency", map[string]any{"query": "rollback runbook"},
			[]string{"checkpoint:1", "event:6"},
			"each holds both words once in 6 tokens: a BM25 tie, broken by recency"},
		{"more words matched first", map[string]any{"query": "billing postgres"},
			[]string{"event:2", "checkpoint:1", "event:3", "event:5"},
			"event 2 matches both words (postgres is rare, high IDF); the others billing alone, shorter first"},
		{"a phrase keeps the order of its words", map[string]any{"query": `"migration rollback"`},
			[]string{"event:6"},
			"only event 6 has migration right before rollback; the checkpoint has both words apart"},
		{"prefix", map[string]any{"query": "migrat*"},
			[]string{"event:7", "checkpoint:1", "event:6", "event:3", "event:5", "event:2"},
			"migrat* matches the same rows as migration"},
		{"kinds", map[string]any{"query": "migration", "kinds": []string{"error", "result"}},
			[]string{"event:3", "event:5"}, "only the error and the result"},
		{"checkpoints as a kind", map[string]any{"query": "migration", "kinds": []string{"checkpoint"}},
			[]string{"checkpoint:1"}, "the checkpoint's summary; the seal (kind checkpoint) is indexed empty"},
		{"since", map[string]any{"query": "migration", "since": "2026-09-13T10:00:04Z"},
			[]string{"event:7", "checkpoint:1", "event:6", "event:5"}, "events 5 (10:00:04) and later"},
		{"limit", map[string]any{"query": "migration", "limit": 2},
			[]string{"event:7", "checkpoint:1"}, "the two best"},
		{"operators are plain words", map[string]any{"query": "NOT lunch"},
			[]string{"event:4", "event:3"}, "NOT is a word to look for, not FTS5's operator: event 3 says 'not', event 4 'lunch'; " +
				"each word is in one row (the same IDF), and event 4 is shorter (3 tokens to 9)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := env.MustCall(t, "search_memory", tc.args)
			got, _ := memHits(t, out)
			assert.Equal(t, tc.want, got, "%s\n%s", tc.why, out)
		})
	}

	out := env.MustCall(t, "search_memory", map[string]any{"query": "0042", "limit": 1})
	_, rows := memHits(t, out)
	assert.Equal(t, []string{"event", "3", "2026-09-13T10:00:02Z", "error", memSession, "Migration [0042] failed: column billing.amount is not null."}, rows[0])
	assert.Contains(t, out, "# 1 rows, truncated by limit=1 (more rows exist; raise limit up to 1000")
	assert.True(t, strings.HasSuffix(env.MustCall(t, "search_memory", map[string]any{"query": "zebra"}), "# 0 rows"))
}

// TestSearchMemoryRefusesWhatItCannotRun: every refusal says what to pass.
func TestSearchMemoryRefusesWhatItCannotRun(t *testing.T) {
	env := memSearchCorpus(t)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": `"unclosed phrase`}, "unclosed '\"'"},
		{map[string]any{"query": " -- ;; "}, "no word to search for"},
		{map[string]any{"query": strings.Repeat("word ", 17)}, "more than 16 words"},
		{map[string]any{"query": strings.Repeat("x", 1001)}, "at most 1000 are searched"},
		{map[string]any{"query": "a", "since": "yesterday"}, "since must be a date"},
		{map[string]any{"query": "a", "limit": 0}, "limit must be between 1 and 1000"},
	} {
		assert.Contains(t, env.MustFail(t, "search_memory", tc.args), tc.want, tc.args)
	}
}

// TestResumeTakesAByteBudget: max_bytes keeps the checkpoint and the
// newest events within the budget and says how many older ones it left
// out; the resume CLI passes it the same way (test/e2e).
func TestResumeTakesAByteBudget(t *testing.T) {
	env, _ := newMemEnv(t, 0)
	env.MustCall(t, "checkpoint", map[string]any{"summary": "the plan: ship the importer"})
	for i := 0; i < 40; i++ {
		env.MustCall(t, "append_event", map[string]any{"content": strings.Repeat("x", 100) + " event " + strconv.Itoa(i)})
	}
	full := env.MustCall(t, "get_resume_context", nil)
	assert.NotContains(t, full, "dropped")
	out := env.MustCall(t, "get_resume_context", map[string]any{"max_bytes": 2048})
	assert.LessOrEqual(t, len(out), 2048)
	assert.Contains(t, out, "the plan: ship the importer", "the checkpoint is kept")
	assert.Contains(t, out, " event 39\n", "the newest event is kept")
	assert.NotContains(t, out, "x event 0\n")
	assert.Regexp(t, `\n# \d+ older events dropped to fit 2048 bytes`, out)
	assert.Contains(t, env.MustFail(t, "get_resume_context", map[string]any{"max_bytes": 100}), "max_bytes must be between 1024 and 65536")
}

// TestSearchIndexIsHiddenLikeTheServerTables: get_schema shows the index
// only with include_system, list_tables marks it a system table, and agent
// SQL cannot change it.
func TestSearchIndexIsHiddenLikeTheServerTables(t *testing.T) {
	env := memSearchCorpus(t)
	assert.NotContains(t, env.MustCall(t, "get_schema", nil), "memory_fts")
	assert.Contains(t, env.MustCall(t, "get_schema", map[string]any{"include_system": true}), "CREATE VIRTUAL TABLE memory_fts USING fts5(")
	assert.Contains(t, env.MustCall(t, "list_tables", nil), "\nmemory_fts,table,1,")
	assert.Contains(t, env.MustFail(t, "write_query", map[string]any{"query": "INSERT INTO memory_fts (rowid, text) VALUES (99, 'forged')"}),
		"memory_fts is managed by the server")
	assert.Contains(t, env.MustFail(t, "destructive_query", map[string]any{"query": "DROP TABLE memory_fts", "reason": "x"}),
		"memory_fts is managed by the server")
	assert.Contains(t, env.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'migration'"}), "\n6\n")
}
