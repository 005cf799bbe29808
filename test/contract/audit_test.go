package contract_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // reads query_log independently of the sink

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/jsonlog"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

func TestSQLiteAuditSink(t *testing.T) {
	contract.TestAuditSink(t, func(t *testing.T) contract.AuditSinkUnderTest {
		path := filepath.Join(t.TempDir(), "audit.db")
		s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		reader, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		require.NoError(t, err)
		t.Cleanup(func() { reader.Close() })
		return contract.AuditSinkUnderTest{Sink: s, Stored: func(t *testing.T, q string) int {
			var n int
			require.NoError(t, reader.QueryRow("SELECT count(*) FROM query_log WHERE query = ?", q).Scan(&n))
			return n
		}}
	})
}

// lockedBuffer is a strings.Builder safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestJSONLinesAuditSink(t *testing.T) {
	contract.TestAuditSink(t, func(t *testing.T) contract.AuditSinkUnderTest {
		out := &lockedBuffer{}
		return contract.AuditSinkUnderTest{Sink: jsonlog.New(out), Stored: func(t *testing.T, q string) int {
			n := 0
			sc := bufio.NewScanner(strings.NewReader(out.String()))
			for sc.Scan() {
				var line struct{ Query *string }
				require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "every line is one JSON object")
				if line.Query != nil && *line.Query == q {
					n++
				}
			}
			return n
		}}
	})
}

// TestFakeAuditSink holds the fake app's tests use to the same contract.
func TestFakeAuditSink(t *testing.T) {
	contract.TestAuditSink(t, func(t *testing.T) contract.AuditSinkUnderTest {
		log := &fake.AuditLog{}
		return contract.AuditSinkUnderTest{Sink: log, Stored: func(t *testing.T, q string) int {
			n := 0
			for _, e := range log.Entries() {
				if e.Query != nil && *e.Query == q {
					n++
				}
			}
			return n
		}}
	})
}
