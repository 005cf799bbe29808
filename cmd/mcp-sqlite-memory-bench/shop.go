package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"

	_ "modernc.org/sqlite" // the shop database is generated through database/sql
)

// shopSize is the generated database's size; the figures use
// 10k customers, 100k orders and 300k items.
type shopSize struct{ customers, orders, items int }

var fullShop = shopSize{customers: 10_000, orders: 100_000, items: 300_000}

// The queries of the side-by-side figures.
const (
	smallQuery = "SELECT * FROM customers WHERE id = %d"
	rowsQuery  = "SELECT * FROM customers WHERE id <= 1000 ORDER BY id"
	joinQuery  = `SELECT c.city, count(*) AS items, round(sum(i.qty * i.price), 2) AS revenue
FROM customers c JOIN orders o ON o.customer_id = c.id JOIN items i ON i.order_id = o.id
GROUP BY c.city ORDER BY revenue DESC`
	// joinRows is the join's row count: one row per city.
	joinRows = 20
)

// makeShop generates the shop database in dir, deterministically (every
// value is a function of its row number), and returns its path.
func makeShop(ctx context.Context, dir string, n shopSize) (string, error) {
	path := filepath.Join(dir, "shop.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	stmts := []string{
		"PRAGMA journal_mode = WAL",
		"PRAGMA synchronous = OFF",
		"CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, city TEXT NOT NULL, tier TEXT NOT NULL, created TEXT NOT NULL)",
		"CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), status TEXT NOT NULL, created TEXT NOT NULL)",
		"CREATE TABLE items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), product TEXT NOT NULL, qty INTEGER NOT NULL, price REAL NOT NULL)",
		"BEGIN",
		fmt.Sprintf(`WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x < %d)
INSERT INTO customers SELECT x, 'customer ' || x, 'c' || x || '@example.com', 'city ' || (x * 7 %% %d),
 CASE x %% 3 WHEN 0 THEN 'gold' WHEN 1 THEN 'silver' ELSE 'bronze' END,
 date('2024-01-01', '+' || (x %% 700) || ' days') FROM n`, n.customers, joinRows),
		fmt.Sprintf(`WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x < %d)
INSERT INTO orders SELECT x, (x * 7919 %% %d) + 1, CASE x %% 4 WHEN 0 THEN 'open' ELSE 'shipped' END,
 date('2025-01-01', '+' || (x %% 300) || ' days') FROM n`, n.orders, n.customers),
		fmt.Sprintf(`WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x < %d)
INSERT INTO items SELECT x, (x - 1) %% %d + 1, 'product ' || (x %% 500), x %% 5 + 1, (x %% 1000) / 10.0 + 0.99 FROM n`, n.items, n.orders),
		"COMMIT",
		"CREATE INDEX orders_customer ON orders(customer_id)",
		"CREATE INDEX items_order ON items(order_id)",
		"ANALYZE",
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return "", fmt.Errorf("shop database: %v\n%s", err, s)
		}
	}
	return path, nil
}
