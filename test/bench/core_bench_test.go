package bench_test

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // the baseline talks to SQLite through database/sql

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// seed makes a table of n rows x 6 columns (int, text, real, text, int, text).
func seed(b *testing.B, env *harness.Env, n int) {
	b.Helper()
	env.MustCall(b, "write_query", map[string]any{"query": "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, tag TEXT, qty INTEGER, note TEXT)"})
	env.MustCall(b, "write_query", map[string]any{"query": fmt.Sprintf(
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < %d)
		 INSERT INTO items SELECT x, 'item ' || x, x * 1.25, 'tag' || (x %% 7), x %% 100, 'a short note about item ' || x FROM c`, n)})
}

func openSQL(b *testing.B, path string) *sql.DB {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=synchronous(normal)")
	require.NoError(b, err)
	b.Cleanup(func() { db.Close() })
	return db
}

func BenchmarkReadQueryPK(b *testing.B) {
	env := harness.New(b, harness.Config{})
	seed(b, env, 1000)
	b.Run("mcp", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			env.MustCall(b, "read_query", map[string]any{"query": fmt.Sprintf("SELECT * FROM items WHERE id = %d", i%1000+1)})
		}
	})
	b.Run("database_sql", func(b *testing.B) {
		db := openSQL(b, env.DBPath)
		var id, qty int64
		var name, tag, note string
		var price float64
		for i := 0; b.Loop(); i++ {
			require.NoError(b, db.QueryRow(fmt.Sprintf("SELECT * FROM items WHERE id = %d", i%1000+1)).Scan(&id, &name, &price, &tag, &qty, &note))
		}
	})
}

func BenchmarkCSV1000x6(b *testing.B) {
	env := harness.New(b, harness.Config{})
	seed(b, env, 1000)
	const q = "SELECT * FROM items"
	b.Run("render_capped_csv", func(b *testing.B) {
		ctx := context.Background()
		for b.Loop() {
			w := domain.NewTableWriter(nil, 1<<30, 2000)
			err := env.Statements.Read(ctx, q, func(c []string) { w = domain.NewTableWriter(c, 1<<30, 2000) }, func(r []any) bool { return w.Add(r) })
			require.NoError(b, err)
			require.Equal(b, 1000, w.Rows())
		}
	})
	b.Run("database_sql_scan", func(b *testing.B) {
		db := openSQL(b, env.DBPath)
		for b.Loop() {
			rows, err := db.Query(q)
			require.NoError(b, err)
			vals := make([]any, 6)
			ptrs := make([]any, 6)
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			n := 0
			for rows.Next() {
				require.NoError(b, rows.Scan(ptrs...))
				n++
			}
			rows.Close()
			require.Equal(b, 1000, n)
		}
	})
}

func BenchmarkWriteInsert(b *testing.B) {
	env := harness.New(b, harness.Config{})
	env.MustCall(b, "write_query", map[string]any{"query": "CREATE TABLE log (id INTEGER PRIMARY KEY, msg TEXT)"})
	b.Run("mcp", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			env.MustCall(b, "write_query", map[string]any{"query": fmt.Sprintf("INSERT INTO log(msg) VALUES ('m%d')", i)})
		}
	})
	b.Run("database_sql", func(b *testing.B) {
		db := openSQL(b, env.DBPath) // WAL, synchronous NORMAL: what agent writes use
		for i := 0; b.Loop(); i++ {
			_, err := db.Exec(fmt.Sprintf("INSERT INTO log(msg) VALUES ('d%d')", i))
			require.NoError(b, err)
		}
	})
}

// BenchmarkColdStart measures the built binary from exec to the first
// tools/list answer (docs/decisions.md#performance-budgets: under 50 ms).
func BenchmarkColdStart(b *testing.B) {
	bin := buildBinary(b)
	dir := b.TempDir()
	db := filepath.Join(dir, "cold.db")
	for i := 0; b.Loop(); i++ {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cmd := exec.Command(bin, "--db", db)
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		require.NoError(b, err)
		_, err = cs.ListTools(context.Background(), nil)
		require.NoError(b, err)
		b.StopTimer()
		cs.Close()
		b.StartTimer()
	}
}

func buildBinary(b *testing.B) string {
	b.Helper()
	bin, err := e2e.Build(b.TempDir())
	require.NoError(b, err)
	return bin
}
