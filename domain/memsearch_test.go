package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestParseMemoryQueryQuotesEveryTerm(t *testing.T) {
	for _, tc := range []struct{ in, all, any string }{
		{"cache", `"cache"`, `"cache"`},
		{"  migration   rollback ", `"migration" AND "rollback"`, `"migration" OR "rollback"`},
		{`"database is locked" wal`, `"database is locked" AND "wal"`, `"database is locked" OR "wal"`},
		{"migrat*", `"migrat"*`, `"migrat"*`},
		{`NOT a OR b`, `"NOT" AND "a" AND "OR" AND "b"`, `"NOT" OR "a" OR "OR" OR "b"`},
		{`title:x NEAR(y) ^z -w`, `"title:x" AND "NEAR(y)" AND "^z" AND "-w"`, `"title:x" OR "NEAR(y)" OR "^z" OR "-w"`},
		{`ab"cd"`, `"ab" AND "cd"`, `"ab" OR "cd"`},
		{`-- x ;`, `"x"`, `"x"`},
		{`café 漢字`, `"café" AND "漢字"`, `"café" OR "漢字"`},
		{"a\x00b \"c\x01d\"", `"a" AND "b" AND "c d"`, `"a" OR "b" OR "c d"`},
	} {
		q, err := domain.ParseMemoryQuery(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.all, q.All, tc.in)
		assert.Equal(t, tc.any, q.Match, tc.in)
	}
}

func TestParseMemoryQueryRefusals(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "no word to search for"},
		{"*** ---", "no word to search for"},
		{`"open`, `unclosed '"'`},
		{strings.Repeat("w ", domain.MaxMemoryQueryTerms+1), "more than 16 words"},
		{strings.Repeat("w", domain.MaxMemoryQueryBytes+1), "at most 1000 are searched"},
		{"\xff", "not valid UTF-8"},
	} {
		_, err := domain.ParseMemoryQuery(tc.in)
		require.Error(t, err, tc.in)
		assert.True(t, errors.Is(err, domain.ErrInvalidArgument), tc.in)
		assert.Contains(t, err.Error(), tc.want, tc.in)
	}
}

func TestParseSince(t *testing.T) {
	for in, want := range map[string]string{"": "", "2026-09-13": "2026-09-13T00:00:00Z", "2026-09-13T12:00:00+02:00": "2026-09-13T10:00:00Z"} {
		got, err := domain.ParseSince(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := domain.ParseSince("13/09/2026")
	assert.ErrorIs(t, err, domain.ErrInvalidArgument)
}

func TestIndexedTextLeavesSealsEmpty(t *testing.T) {
	c := domain.Checkpoint{ID: 3, TS: "t", Session: "s", Summary: "x", LastEventID: 4, HeadHash: strings.Repeat("0", 64)}
	seal, err := domain.NewSeal(c)
	require.NoError(t, err)
	assert.Empty(t, domain.IndexedText(seal))
	assert.Equal(t, "checkpoint 3 sealed", domain.IndexedText(domain.Event{Kind: "note", Content: "checkpoint 3 sealed"}))
}

func TestServerTablesIncludeTheSearchIndex(t *testing.T) {
	for _, name := range []string{"memory_fts", "MEMORY_FTS", "memory_fts_data", "memory_fts_idx", "memory_fts_content", "memory_fts_docsize", "memory_fts_config"} {
		assert.True(t, domain.IsServerTable(name), name)
	}
	for _, name := range []string{"memory_fts_mine", "memory_ft", "my_memory_fts"} {
		assert.False(t, domain.IsServerTable(name), name)
	}
}

func TestRenderedResourcesAreCapped(t *testing.T) {
	big := strings.Repeat("é", 3000) // 6000 bytes
	out := domain.RenderCheckpoint(domain.ResumeState{Checkpoint: &domain.Checkpoint{ID: 2, Summary: big}, Anchored: true}, 1001)
	assert.Contains(t, out, "\n# summary cut to 1000 of 6000 bytes; read it with read_query")
	assert.Less(t, len(out), 1500)
	ev := domain.RenderEvent(domain.Event{ID: 5, Content: big}, 1001)
	assert.Contains(t, ev, "\n# content cut to 1000 of 6000 bytes")
	views := domain.RenderViews([]domain.SchemaObject{{Type: "view", Name: "a", SQL: strings.Repeat("x", 600)}, {Type: "view", Name: "b", SQL: strings.Repeat("y", 600)}, {Type: "table", Name: "t"}}, 1000)
	assert.Contains(t, views, "# 2 views:")
	assert.Contains(t, views, "-- view a\n")
	assert.Contains(t, views, "\n\n# 1 more views left out to fit 1000 bytes; get_schema lists them all")
}
