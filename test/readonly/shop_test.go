package readonly_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The eight analytic tasks of the read-only seed, played by an agent over
// MCP against a read-only server. Each expected answer is computed in Go
// from the generated rows, never by SQL.

// csvLines renders rows as read_query does for plain values: header, one
// line per row, then the trailer.
func csvLines(header string, rows [][]any, trailer string) string {
	var b strings.Builder
	b.WriteString(header)
	b.WriteByte('\n')
	for _, r := range rows {
		for i, v := range r {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, v)
		}
		b.WriteByte('\n')
	}
	b.WriteString(trailer)
	return b.String()
}

func TestReadOnlyToolsAreTheReadTools(t *testing.T) {
	want := map[bool][]string{
		false: {"describe_table", "get_schema", "list_tables", "read_query", "search_text"},
		true:  {"describe_table", "get_resume_context", "get_schema", "list_tables", "read_query", "search_memory", "search_text", "verify_chain"},
	}
	data := newShop()
	for _, fx := range shopFixtures {
		t.Run(fx.name, func(t *testing.T) {
			s := openSession(t, fx, data)
			res, err := s.Client.ListTools(context.Background(), nil)
			require.NoError(t, err)
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				assert.True(t, tool.Annotations.ReadOnlyHint, tool.Name)
			}
			sort.Strings(names)
			assert.Equal(t, want[fx.memory], names)
			if fx.memory {
				assert.Contains(t, s.MustCall(t, "verify_chain", nil), `"ok": true, "events": 4,`)
				assert.Contains(t, s.MustCall(t, "get_resume_context", nil), "shop explored")
			}
			s.closeAndCheck(t)
		})
	}
}

func TestSeedTasksOverAReadOnlyShop(t *testing.T) {
	data := newShop()
	for _, fx := range shopFixtures {
		t.Run(fx.name, func(t *testing.T) {
			s := openSession(t, fx, data)
			t.Run("table discovery", func(t *testing.T) { taskDiscovery(t, s, data, fx.memory) })
			t.Run("filtered count", func(t *testing.T) { taskFilteredCount(t, s, data) })
			t.Run("top country", func(t *testing.T) { taskTopCountry(t, s, data) })
			t.Run("customer lifetime value, paged", func(t *testing.T) { taskLifetimeValue(t, s, data) })
			t.Run("top products by quantity and revenue", func(t *testing.T) { taskTopProducts(t, s, data) })
			t.Run("top categories by revenue", func(t *testing.T) { taskTopCategories(t, s, data) })
			t.Run("revenue of one year", func(t *testing.T) { taskYearRevenue(t, s, data) })
			t.Run("orders per customer", func(t *testing.T) { taskOrdersPerCustomer(t, s, data) })
			t.Run("full-text and text search", func(t *testing.T) { taskSearch(t, s, data) })
			s.closeAndCheck(t)
		})
	}
}

func taskDiscovery(t *testing.T, s *session, data shop, memory bool) {
	type entry struct {
		typ    string
		system int
		rows   string
	}
	want := map[string]entry{"product_search": {"table", 0, fmt.Sprint(len(data.Products))}}
	for name, n := range data.rows() {
		want[name] = entry{"table", 0, fmt.Sprint(n)}
	}
	if memory {
		want["memory_events"] = entry{"table", 1, "4"} // two events, the marker before the first checkpoint, its seal
		want["memory_checkpoints"] = entry{"table", 1, "1"}
		want["memory_fts"] = entry{"table", 1, "5"} // the search index: the four events and the checkpoint
		want["query_log"] = entry{"table", 1, "0"}
	}
	var rows [][]any
	for _, name := range sortedKeys(want) {
		e := want[name]
		rows = append(rows, []any{name, e.typ, e.system, e.rows})
	}
	if memory {
		rows = append(rows, []any{"query_errors", "view", 1, ""})
	}
	assert.Equal(t, csvLines("name,type,system,rows", rows, fmt.Sprintf("# %d rows", len(rows))), s.MustCall(t, "list_tables", nil))

	schema := s.MustCall(t, "get_schema", nil)
	for _, name := range shopTables {
		out := s.MustCall(t, "describe_table", map[string]any{"table": name})
		assert.Contains(t, out, fmt.Sprintf("\n\n# rows\n%d\n\n", data.rows()[name]), name)
		assert.True(t, strings.HasSuffix(out, "\n\n# sql\n"+shopDDL[name]+";"), "%s ends with its CREATE statement:\n%s", name, out)
		assert.Contains(t, schema, shopDDL[name]+";")
	}
	assert.Contains(t, s.MustCall(t, "describe_table", map[string]any{"table": "orders"}),
		"# foreign_keys\nfrom,to_table,to_column\ncustomer_id,customers,id")
}

func taskFilteredCount(t *testing.T, s *session, data shop) {
	n := 0
	for _, c := range data.Customers {
		if c.Country == "Germany" {
			n++
		}
	}
	require.NotZero(t, n)
	assert.Equal(t, fmt.Sprintf("COUNT(*)\n%d\n# 1 rows", n),
		s.MustCall(t, "read_query", map[string]any{"query": "SELECT COUNT(*) FROM customers WHERE country = 'Germany'"}))
}

func taskTopCountry(t *testing.T, s *session, data shop) {
	counts := map[string]int{}
	for _, c := range data.Customers {
		counts[c.Country]++
	}
	top := ""
	for _, name := range sortedKeys(counts) {
		if top == "" || counts[name] > counts[top] {
			top = name
		}
	}
	assert.Equal(t, fmt.Sprintf("country,customers\n%s,%d\n# 1 rows", top, counts[top]),
		s.MustCall(t, "read_query", map[string]any{"query": "SELECT country, COUNT(*) AS customers FROM customers GROUP BY country ORDER BY customers DESC, country LIMIT 1"}))
}

// taskLifetimeValue pages through every customer who ordered, 40 at a time,
// following the offset each trailer names.
func taskLifetimeValue(t *testing.T, s *session, data shop) {
	spent := map[int]int64{}
	for _, o := range data.Orders {
		spent[o.Customer] += o.Cents
	}
	var ids []int
	for id := range spent {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		return spent[a] > spent[b] || spent[a] == spent[b] && a < b
	})
	const q = `SELECT c.id, c.first_name, c.last_name, ROUND(SUM(o.total_amount), 2) AS lifetime_value
FROM customers c JOIN orders o ON o.customer_id = c.id
GROUP BY c.id ORDER BY lifetime_value DESC, c.id`
	const limit = 40
	for offset := 0; offset < len(ids); offset += limit {
		page := ids[offset:min(offset+limit, len(ids))]
		var rows [][]any
		for _, id := range page {
			c := data.Customers[id-1]
			rows = append(rows, []any{c.ID, c.First, c.Last, money(spent[id])})
		}
		trailer := fmt.Sprintf("# %d rows", len(page))
		if offset+limit < len(ids) {
			trailer += fmt.Sprintf(", truncated by limit=%d (more rows exist; next page: offset=%d; raise limit up to 1000 or narrow the query)", limit, offset+limit)
		}
		got := s.MustCall(t, "read_query", map[string]any{"query": q, "limit": limit, "offset": offset})
		assert.Equal(t, csvLines("id,first_name,last_name,lifetime_value", rows, trailer), got, "page at offset %d", offset)
	}
}

// revenue sums quantity x unit price per key.
func revenue(data shop, key func(item) int) (units map[int]int, cents map[int]int64) {
	units, cents = map[int]int{}, map[int]int64{}
	for _, it := range data.Items {
		k := key(it)
		units[k] += it.Quantity
		cents[k] += int64(it.Quantity) * it.Cents
	}
	return units, cents
}

func taskTopProducts(t *testing.T, s *session, data shop) {
	units, cents := revenue(data, func(it item) int { return it.Product })
	var ids []int
	for id := range units {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		if units[a] != units[b] {
			return units[a] > units[b]
		}
		if cents[a] != cents[b] {
			return cents[a] > cents[b]
		}
		return a < b
	})
	var rows [][]any
	for _, id := range ids[:5] {
		rows = append(rows, []any{id, data.Products[id-1].Name, units[id], money(cents[id])})
	}
	assert.Equal(t, csvLines("id,name,units,revenue", rows, "# 5 rows"), s.MustCall(t, "read_query", map[string]any{"query": `
SELECT p.id, p.name, SUM(oi.quantity) AS units, ROUND(SUM(oi.quantity * oi.unit_price), 2) AS revenue
FROM order_items oi JOIN products p ON p.id = oi.product_id
GROUP BY p.id ORDER BY units DESC, revenue DESC, p.id LIMIT 5`}))
}

func taskTopCategories(t *testing.T, s *session, data shop) {
	_, cents := revenue(data, func(it item) int { return data.Products[it.Product-1].Category })
	var ids []int
	for id := range cents {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		return cents[a] > cents[b] || cents[a] == cents[b] && data.Categories[a-1] < data.Categories[b-1]
	})
	var rows [][]any
	for _, id := range ids[:3] {
		rows = append(rows, []any{data.Categories[id-1], money(cents[id])})
	}
	assert.Equal(t, csvLines("category,revenue", rows, "# 3 rows"), s.MustCall(t, "read_query", map[string]any{"query": `
SELECT cat.name AS category, ROUND(SUM(oi.quantity * oi.unit_price), 2) AS revenue
FROM order_items oi JOIN products p ON p.id = oi.product_id JOIN categories cat ON cat.id = p.category_id
GROUP BY cat.id ORDER BY revenue DESC, cat.name LIMIT 3`}))
}

func taskYearRevenue(t *testing.T, s *session, data shop) {
	var cents int64
	n := 0
	for _, o := range data.Orders {
		if strings.HasPrefix(o.Date, "2025-") {
			cents += o.Cents
			n++
		}
	}
	require.NotZero(t, n)
	assert.Equal(t, fmt.Sprintf("orders,revenue\n%d,%s\n# 1 rows", n, money(cents)), s.MustCall(t, "read_query", map[string]any{
		"query": "SELECT COUNT(*) AS orders, ROUND(SUM(total_amount), 2) AS revenue FROM orders WHERE substr(order_date, 1, 4) = '2025'"}))
}

func taskOrdersPerCustomer(t *testing.T, s *session, data shop) {
	orders := map[int]int{}
	for _, o := range data.Orders {
		orders[o.Customer]++
	}
	ids := make([]int, 0, len(data.Customers))
	for _, c := range data.Customers {
		ids = append(ids, c.ID) // customers without an order count too (LEFT JOIN)
	}
	sort.SliceStable(ids, func(i, j int) bool { return orders[ids[i]] > orders[ids[j]] })
	var rows [][]any
	for _, id := range ids[:10] {
		c := data.Customers[id-1]
		rows = append(rows, []any{c.ID, c.First, c.Last, orders[id]})
	}
	assert.Equal(t, csvLines("id,first_name,last_name,orders", rows, "# 10 rows"), s.MustCall(t, "read_query", map[string]any{"query": `
SELECT c.id, c.first_name, c.last_name, COUNT(o.id) AS orders
FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
GROUP BY c.id ORDER BY orders DESC, c.id LIMIT 10`}))
	last := ids[len(ids)-1]
	assert.Equal(t, fmt.Sprintf("id,orders\n%d,%d\n# 1 rows", last, orders[last]), s.MustCall(t, "read_query", map[string]any{"query": `
SELECT c.id, COUNT(o.id) AS orders FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
GROUP BY c.id ORDER BY orders, c.id DESC LIMIT 1`}))
}

func taskSearch(t *testing.T, s *session, data shop) {
	var rows [][]any
	var names []string
	for _, p := range data.Products {
		if strings.HasPrefix(p.Name, "Deluxe ") {
			rows = append(rows, []any{p.ID})
			names = append(names, p.Name)
		}
	}
	require.NotEmpty(t, rows)
	assert.Equal(t, csvLines("rowid", rows, fmt.Sprintf("# %d rows", len(rows))), s.MustCall(t, "read_query", map[string]any{
		"query": "SELECT rowid FROM product_search WHERE product_search MATCH 'deluxe' ORDER BY rowid"}))
	out := s.MustCall(t, "search_text", map[string]any{"pattern": "^Deluxe ", "table": "products", "columns": []string{"name"}})
	for _, name := range names {
		assert.Contains(t, out, name)
	}
}
