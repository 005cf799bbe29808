package contract_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// bin is the server binary TestMain built for the stdio run.
var bin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, &bin)) }

// TestTransportInMemory runs the transport contract over the SDK's
// in-memory transports, with the server built in-process.
func TestTransportInMemory(t *testing.T) {
	contract.TestTransport(t, func(t *testing.T) *mcp.ClientSession {
		return harness.New(t, harness.Config{}).Client
	})
}

// TestTransportStdio runs the same contract against the built binary over
// its stdin and stdout, as an agent's MCP client runs it.
func TestTransportStdio(t *testing.T) {
	contract.TestTransport(t, func(t *testing.T) *mcp.ClientSession {
		db := filepath.Join(t.TempDir(), "mem.db")
		return e2e.Start(t, e2e.Command(bin, "--db", db)).Session
	})
}
