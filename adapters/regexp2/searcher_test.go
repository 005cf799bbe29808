package regexp2_test

import (
	"testing"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/regexp2"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
)

func TestSearcherContract(t *testing.T) {
	t.Parallel()
	contract.TestTextSearcher(t, func(*testing.T) ports.TextSearcher { return regexp2.New() })
}
