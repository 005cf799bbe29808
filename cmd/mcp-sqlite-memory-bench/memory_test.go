package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/memory"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestPreloadedMemoriesHoldTheSameFacts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	require.NoError(t, preloadChain(ctx, db, 5))
	store, err := sqlite.Open(ctx, db, sqlite.Options{})
	require.NoError(t, err)
	defer store.Close()
	v := domain.NewChainVerifier()
	var contents []string
	n, err := memory.New(store).Events(ctx, nil, func(e domain.Event) bool {
		contents = append(contents, e.Content)
		return v.Add(e)
	})
	require.NoError(t, err)
	assert.True(t, v.Result(n).OK, "the preloaded chain verifies")
	assert.Equal(t, int64(5), n)

	file := filepath.Join(dir, "m.jsonl")
	require.NoError(t, preloadGraph(file, 5))
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, 5)
	for i, l := range lines {
		var e struct {
			Type, Name   string
			Observations []string
		}
		require.NoError(t, json.Unmarshal([]byte(l), &e))
		assert.Equal(t, "entity", e.Type)
		assert.Equal(t, []string{contents[i]}, e.Observations, "the same fact on both sides")
	}
}
