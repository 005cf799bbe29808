package contract_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/schema"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/contract"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

func TestSQLiteSchema(t *testing.T) {
	contract.TestSchema(t, func(t *testing.T) contract.SchemaUnderTest {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "schema.db"), sqlite.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return contract.SchemaUnderTest{Reader: schema.NewReader(s), Views: schema.NewViewWriter(s), AddTable: func(t *testing.T, name string, rows int, columns ...[2]string) {
			var defs, values []string
			for _, c := range columns {
				defs = append(defs, c[0]+" "+c[1])
				values = append(values, "NULL")
			}
			write := func(q string) {
				_, err := sqlite.NewStatementRunner(s).Write(context.Background(), domain.WriteRequest{Tier: domain.TierWrite, SQL: q}, func([]string) {}, func([]any) bool { return true })
				require.NoError(t, err, q)
			}
			write(fmt.Sprintf("CREATE TABLE %s (%s)", name, strings.Join(defs, ", ")))
			for range rows {
				write(fmt.Sprintf("INSERT INTO %s VALUES (%s)", name, strings.Join(values, ", ")))
			}
		}}
	})
}

// TestFakeSchema holds the fake app's tests use to the same contract.
func TestFakeSchema(t *testing.T) {
	contract.TestSchema(t, func(*testing.T) contract.SchemaUnderTest {
		s := &fake.Schema{}
		return contract.SchemaUnderTest{Reader: s, Views: s, AddTable: func(_ *testing.T, name string, rows int, columns ...[2]string) {
			s.AddTable(name, int64(rows), columns...)
		}}
	})
}
