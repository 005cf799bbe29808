package contract_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/memory"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

func TestSQLiteMemoryStore(t *testing.T) {
	contract.TestMemoryStore(t, func(t *testing.T) ports.MemoryStore {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "memory.db"), sqlite.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return memory.New(s)
	})
}

// TestFakeMemoryStore holds the fake app's tests use to the same contract.
func TestFakeMemoryStore(t *testing.T) {
	contract.TestMemoryStore(t, func(*testing.T) ports.MemoryStore { return &fake.Memory{} })
}
