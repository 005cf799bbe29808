package bench_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
)

// bigJoinQuery is the side-by-side bench's 3-table join + GROUP BY
// (cmd/mcp-sqlite-memory-bench, shop.go), on the same generated data.
const bigJoinQuery = `SELECT c.city, count(*) AS items, round(sum(i.qty * i.price), 2) AS revenue
FROM customers c JOIN orders o ON o.customer_id = c.id JOIN items i ON i.order_id = o.id
GROUP BY c.city ORDER BY revenue DESC`

// bigShop generates the bench's shop database in a temporary folder (10k
// customers, 100k orders, 300k items, as shop.go makes it) and returns
// its path.
func bigShop(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "shop.db")
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(b, err)
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{
		"PRAGMA journal_mode = WAL", "PRAGMA synchronous = OFF",
		"CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, city TEXT NOT NULL, tier TEXT NOT NULL, created TEXT NOT NULL)",
		"CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), status TEXT NOT NULL, created TEXT NOT NULL)",
		"CREATE TABLE items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), product TEXT NOT NULL, qty INTEGER NOT NULL, price REAL NOT NULL)",
		"BEGIN",
		`WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x < 10000)
INSERT INTO customers SELECT x, 'customer ' || x, 'c' || x || '@example.com', 'city ' || (x * 7 % 20),
 CASE x % 3 WHEN 0 THEN 'gold' WHEN 1 THEN 'silver' ELSE 'bronze' END, date('2024-01-01', '+' || (x % 700) || ' days') FROM n`,
		`WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x < 100000)
INSERT INTO orders SELECT x, (x * 7919 % 10000) + 1, CASE x % 4 WHEN 0 THEN 'open' ELSE 'shipped' END,
 date('2025-01-01', '+' || (x % 300) || ' days') FROM n`,
		`WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x < 300000)
INSERT INTO items SELECT x, (x - 1) % 100000 + 1, 'product ' || (x % 500), x % 5 + 1, (x % 1000) / 10.0 + 0.99 FROM n`,
		"COMMIT", "CREATE INDEX orders_customer ON orders(customer_id)", "CREATE INDEX items_order ON items(order_id)", "ANALYZE",
	} {
		_, err := db.Exec(s)
		require.NoError(b, err, s)
	}
	return path
}

// BenchmarkStoreJoin is the 3-table join + GROUP BY at the store (the
// agent read tier: policy, statement cache, program check), without app,
// audit or MCP: the server's side of the stdio join figure. cpu-ns/op is
// the process's CPU time per join, steadier than wall time on a shared
// machine.
func BenchmarkStoreJoin(b *testing.B) {
	ctx := context.Background()
	path := bigShop(b)
	// cache=2MiB is SQLite's default page cache, cache=16MiB the one the
	// server gives each read connection under the default heap cap.
	for _, c := range []struct {
		name  string
		bytes int
	}{{"cache=2MiB", 0}, {"cache=16MiB", 16 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			st, err := sqlite.Open(ctx, path, sqlite.Options{ReadCacheBytes: c.bytes})
			require.NoError(b, err)
			defer st.Close()
			runner := sqlite.NewStatementRunner(st)
			done := perf2CPU(b)
			for b.Loop() {
				n := 0
				require.NoError(b, runner.Read(ctx, bigJoinQuery, func([]string) {}, func([]any) bool { n++; return true }))
				require.Equal(b, 20, n)
			}
			done()
		})
	}
}
