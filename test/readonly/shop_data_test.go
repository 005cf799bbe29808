// Package readonly_test checks read-only mode (--read-only) from the
// outside: an agent's analytic session over a shop database through a real
// MCP client, the read-tier attack corpus, and the built binary's audit
// trail and open failures. After every session the database file has the
// same bytes and modification time, and no file has appeared next to it.
package readonly_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // the test builds the shop file without the server
)

// The shop is the database of the read-only seed (customers, products in
// categories, orders and their items), generated from a fixed seed. Money
// is kept in cents on the Go side, so every expected answer is computed
// exactly, independently of SQLite; the file stores it as REAL, as a shop
// would.

type customer struct {
	ID                          int
	First, Last, Email, Country string
}

type product struct {
	ID, Category int
	Name         string
	Cents        int64
}

type order struct {
	ID, Customer int
	Date         string
	Cents        int64 // the sum of its items
}

type item struct {
	ID, Order, Product, Quantity int
	Cents                        int64 // unit price
}

type shop struct {
	Categories []string // category id = index + 1
	Customers  []customer
	Products   []product
	Orders     []order
	Items      []item
}

// shopDDL is the schema, in the order the tables are created; describe_table
// must give back each CREATE statement as written here.
var shopDDL = map[string]string{
	"categories": "CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
	"customers": "CREATE TABLE customers (id INTEGER PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL, " +
		"email TEXT NOT NULL UNIQUE, country TEXT NOT NULL)",
	"products": "CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, " +
		"category_id INTEGER NOT NULL REFERENCES categories (id), price REAL NOT NULL)",
	"orders": "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers (id), " +
		"order_date TEXT NOT NULL, total_amount REAL NOT NULL)",
	"order_items": "CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders (id), " +
		"product_id INTEGER NOT NULL REFERENCES products (id), quantity INTEGER NOT NULL, unit_price REAL NOT NULL)",
}

var shopTables = []string{"categories", "customers", "products", "orders", "order_items"}

// newShop generates the shop's rows.
func newShop() shop {
	r := rand.New(rand.NewPCG(4, 0x5eed))
	var s shop
	s.Categories = []string{"Books", "Electronics", "Garden", "Kitchen", "Sports", "Toys"}
	firsts := []string{"Alice", "Bob", "Chloe", "Daniel", "Emma", "Felix", "Grace", "Hugo", "Ines", "Jonas", "Keiko", "Liam"}
	lasts := []string{"Meyer", "Dubois", "Smith", "Tanaka", "Silva", "Patel", "Martin", "Garcia", "Kim", "Novak"}
	// Weighted so that one country clearly leads, as in the seed's task.
	countries := []struct {
		name   string
		weight int
	}{{"Germany", 9}, {"United States", 12}, {"France", 6}, {"Japan", 5}, {"Brazil", 4}, {"India", 4}, {"Canada", 3}, {"Spain", 3}}
	weights := 0
	for _, c := range countries {
		weights += c.weight
	}
	for id := 1; id <= 150; id++ {
		pick := r.IntN(weights)
		country := ""
		for _, c := range countries {
			if pick < c.weight {
				country = c.name
				break
			}
			pick -= c.weight
		}
		f, l := firsts[r.IntN(len(firsts))], lasts[r.IntN(len(lasts))]
		s.Customers = append(s.Customers, customer{ID: id, First: f, Last: l, Country: country,
			Email: fmt.Sprintf("%s.%s.%d@example.com", strings.ToLower(f), strings.ToLower(l), id)})
	}
	adjectives := []string{"Classic", "Compact", "Deluxe", "Eco", "Mini", "Pro", "Smart"}
	for id := 1; id <= 40; id++ {
		cat := r.IntN(len(s.Categories)) + 1
		s.Products = append(s.Products, product{ID: id, Category: cat,
			Name:  fmt.Sprintf("%s %s item %d", adjectives[r.IntN(len(adjectives))], s.Categories[cat-1], id),
			Cents: int64(199 + r.IntN(25000))})
	}
	itemID := 0
	for id := 1; id <= 600; id++ {
		o := order{ID: id, Customer: r.IntN(len(s.Customers)) + 1,
			Date: fmt.Sprintf("%d-%02d-%02d", 2023+r.IntN(3), 1+r.IntN(12), 1+r.IntN(28))}
		for range 1 + r.IntN(4) {
			itemID++
			p := s.Products[r.IntN(len(s.Products))]
			it := item{ID: itemID, Order: id, Product: p.ID, Quantity: 1 + r.IntN(5), Cents: p.Cents}
			o.Cents += int64(it.Quantity) * it.Cents
			s.Items = append(s.Items, it)
		}
		s.Orders = append(s.Orders, o)
	}
	return s
}

// rows returns how many rows each table holds.
func (s shop) rows() map[string]int {
	return map[string]int{"categories": len(s.Categories), "customers": len(s.Customers),
		"products": len(s.Products), "orders": len(s.Orders), "order_items": len(s.Items)}
}

// amount is the REAL a shop stores for a number of cents.
func amount(cents int64) float64 { return float64(cents) / 100 }

// money spells cents the way read_query renders the REAL that
// ROUND(x, 2) yields (Python's repr: shortest form, at least one decimal).
func money(cents int64) string {
	s := strconv.FormatFloat(amount(cents), 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// dsn is a file: URI for path with the given query, whatever characters
// the path holds.
func dsn(path, query string) string {
	return (&url.URL{Scheme: "file", Path: path, RawQuery: query}).String()
}

// mustWriteShop creates the shop file at path in the given journal mode
// ("delete" or "wal"), with an FTS5 index of the product names, and closes
// it. Nothing of the server is in it.
func mustWriteShop(t testing.TB, path, journal string, s shop) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	db, err := sql.Open("sqlite", dsn(path, "_pragma=journal_mode("+journal+")"))
	require.NoError(t, err)
	defer db.Close()
	tx, err := db.Begin()
	require.NoError(t, err)
	exec := func(q string, args ...any) {
		t.Helper()
		_, err := tx.Exec(q, args...)
		require.NoError(t, err, q)
	}
	for _, name := range shopTables {
		exec(shopDDL[name])
	}
	exec("CREATE INDEX orders_customer ON orders (customer_id)")
	exec("CREATE VIRTUAL TABLE product_search USING fts5 (name, content = 'products', content_rowid = 'id')")
	for i, c := range s.Categories {
		exec("INSERT INTO categories VALUES (?, ?)", i+1, c)
	}
	for _, c := range s.Customers {
		exec("INSERT INTO customers VALUES (?, ?, ?, ?, ?)", c.ID, c.First, c.Last, c.Email, c.Country)
	}
	for _, p := range s.Products {
		exec("INSERT INTO products VALUES (?, ?, ?, ?)", p.ID, p.Name, p.Category, amount(p.Cents))
	}
	exec("INSERT INTO product_search (product_search) VALUES ('rebuild')")
	for _, o := range s.Orders {
		exec("INSERT INTO orders VALUES (?, ?, ?, ?)", o.ID, o.Customer, o.Date, amount(o.Cents))
	}
	for _, it := range s.Items {
		exec("INSERT INTO order_items VALUES (?, ?, ?, ?, ?)", it.ID, it.Order, it.Product, it.Quantity, amount(it.Cents))
	}
	require.NoError(t, tx.Commit())
}
