package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The read-only attack corpus of test/readonly, run here against the
// layers behind the authorizer alone (the EXPLAIN inspection, query_only
// and mode=ro): statements that only read a setting may now succeed, but
// none may change the file or leave anything beside it. It lives in this
// package because only this package's tests can switch the authorizer off
// (export_layers_test.go). test/readonly runs the same corpus with every
// layer on, through the MCP layer.

// roShop is a small shop with the tables, index and FTS5 table the corpus
// aims at.
var roShop = []string{
	"CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
	"CREATE TABLE customers (id INTEGER PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, country TEXT NOT NULL)",
	"CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category_id INTEGER NOT NULL REFERENCES categories (id), price REAL NOT NULL)",
	"CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers (id), order_date TEXT NOT NULL, total_amount REAL NOT NULL)",
	"CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders (id), product_id INTEGER NOT NULL REFERENCES products (id), quantity INTEGER NOT NULL, unit_price REAL NOT NULL)",
	"CREATE INDEX orders_customer ON orders (customer_id)",
	"CREATE VIRTUAL TABLE product_search USING fts5 (name, content = 'products', content_rowid = 'id')",
	"INSERT INTO categories VALUES (1, 'books'), (2, 'tools')",
	"INSERT INTO customers VALUES (1, 'Ada', 'Lovelace', 'ada@example.com', 'UK'), (2, 'Alan', 'Turing', 'alan@example.com', 'UK')",
	"INSERT INTO products VALUES (1, 'Notebook', 1, 3.5), (2, 'Hammer', 2, 12.25)",
	"INSERT INTO product_search (product_search) VALUES ('rebuild')",
	"INSERT INTO orders VALUES (1, 1, '2026-01-02', 15.75), (2, 2, '2026-01-03', 3.5)",
	"INSERT INTO order_items VALUES (1, 1, 1, 1, 3.5), (2, 1, 2, 1, 12.25), (3, 2, 1, 1, 3.5)",
}

// mustShop writes the shop at path in the given journal mode, after the
// server's own tables and a short chain when server is set.
func mustShop(t *testing.T, path, journal string, server bool) {
	t.Helper()
	if server {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
		require.NoError(t, err)
		_, err = s.Append(context.Background(), func(id int64, hash string) (domain.Event, error) {
			return domain.NewEvent(id, hash, "2026-09-13T10:11:10Z", "20260913T101100Z-seed", "note", "loaded the shop")
		}, nil)
		require.NoError(t, err)
		require.NoError(t, s.Close())
	}
	mustRawDB(t, path, journal, roShop...)
}

// roAttacks reads test/readonly's corpus, with {{dir}} replaced by dir.
func roAttacks(t *testing.T, dir string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "test", "readonly", "testdata", "read_attacks.sql"))
	require.NoError(t, err)
	out := map[string]string{}
	for _, block := range strings.Split(string(b), "\n-- attack: ")[1:] {
		name, body, ok := strings.Cut(block, "\n")
		require.True(t, ok, "attack %q has no statement", name)
		out[name] = strings.TrimSpace(strings.ReplaceAll(body, "{{dir}}", dir))
	}
	require.Greater(t, len(out), 90, "the whole corpus was read")
	return out
}

func TestReadOnlyAttackCorpusWithTheAuthorizerOff(t *testing.T) {
	for _, fx := range []struct {
		name, journal string
		server        bool
	}{{"rollback-journal shop", "delete", false}, {"WAL shop with the server's tables", "wal", true}} {
		t.Run(fx.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), roFolder)
			path := filepath.Join(dir, "shop.db")
			mustShop(t, path, fx.journal, fx.server)
			before := stateOf(t, path)
			store, err := sqlite.Open(context.Background(), path, sqlite.WithoutAuthorizer(sqlite.Options{ReadOnly: true}))
			require.NoError(t, err)
			rows, err := readRows(store, "SELECT count(*) FROM order_items")
			require.NoError(t, err, "the shop is readable")
			require.Equal(t, [][]any{{int64(3)}}, rows)
			for name, q := range roAttacks(t, dir) {
				err := store.Read(context.Background(), q, func([]string) {}, func([]any) bool { return true })
				if err != nil {
					assert.NotContains(t, err.Error(), dir, name)
				}
			}
			require.NoError(t, store.Close())
			assert.Equal(t, before, stateOf(t, path), fmt.Sprintf("%s: the file and its folder are exactly as before", fx.name))
		})
	}
}
