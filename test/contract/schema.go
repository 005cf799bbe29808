package contract

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// SchemaUnderTest is one implementation of the schema ports and a way to
// give it a table from outside them.
type SchemaUnderTest struct {
	Reader ports.SchemaReader
	Views  ports.ViewWriter
	// AddTable creates table name with the columns (name, declared type)
	// and rows rows.
	AddTable func(t *testing.T, name string, rows int, columns ...[2]string)
}

// TestSchema checks what app relies on from a [ports.SchemaReader] and a
// [ports.ViewWriter] (a fresh, empty database per subtest from open):
// names are matched ignoring ASCII case, a missing name is
// [domain.ErrNotFound], row counts only when asked, and a view stored
// through the writer is read back, its audit entry built once from its
// name.
func TestSchema(t *testing.T, open func(t *testing.T) SchemaUnderTest) {
	t.Helper()
	ctx := context.Background()
	notes := func(t *testing.T) SchemaUnderTest {
		t.Helper()
		u := open(t)
		u.AddTable(t, "notes", 3, [2]string{"id", "INTEGER"}, [2]string{"title", "TEXT"})
		return u
	}
	t.Run("tables with and without counts", func(t *testing.T) {
		u := notes(t)
		tables, err := u.Reader.Tables(ctx, true)
		require.NoError(t, err)
		assert.Contains(t, tables, domain.TableInfo{Name: "notes", Type: "table", Rows: 3})
		tables, err = u.Reader.Tables(ctx, false)
		require.NoError(t, err)
		assert.Contains(t, tables, domain.TableInfo{Name: "notes", Type: "table", Rows: -1}, "no count unless asked")
	})
	t.Run("describe ignores letter case", func(t *testing.T) {
		u := notes(t)
		d, err := u.Reader.Describe(ctx, "NOTES")
		require.NoError(t, err)
		assert.Equal(t, "notes", d.Name, "the declared name comes back")
		assert.Equal(t, "table", d.Type)
		var cols [][2]string
		for _, c := range d.Columns {
			cols = append(cols, [2]string{c.Name, c.Type})
		}
		assert.Equal(t, [][2]string{{"id", "INTEGER"}, {"title", "TEXT"}}, cols)
	})
	t.Run("missing names are not found", func(t *testing.T) {
		u := notes(t)
		_, err := u.Reader.Describe(ctx, "gone")
		assertNotFound(t, err)
		_, err = u.Reader.Object(ctx, "gone")
		assertNotFound(t, err)
	})
	t.Run("object ignores letter case", func(t *testing.T) {
		u := notes(t)
		o, err := u.Reader.Object(ctx, "Notes")
		require.NoError(t, err)
		assert.Equal(t, "table", o.Type)
		assert.Equal(t, "notes", o.Name)
	})
	t.Run("a stored view reads back", func(t *testing.T) {
		u := notes(t)
		var audited []string
		audit := func(name string) domain.AuditEntry {
			audited = append(audited, name)
			return domain.AuditEntry{TS: "2026-12-01T10:00:00.000Z", Session: "s", Tool: "create_view", OK: true}
		}
		require.NoError(t, u.Views.ReplaceView(ctx, domain.View{Name: "recent", Description: "newest first", Body: "SELECT id FROM notes ORDER BY id DESC"}, false, audit))
		assert.Equal(t, []string{"recent"}, audited, "the audit entry is built once, from the stored name")
		o, err := u.Reader.Object(ctx, "RECENT")
		require.NoError(t, err)
		assert.Equal(t, "view", o.Type)
		assert.Contains(t, o.SQL, "SELECT id FROM notes ORDER BY id DESC")
		tables, err := u.Reader.Tables(ctx, false)
		require.NoError(t, err)
		assert.Contains(t, tables, domain.TableInfo{Name: "recent", Type: "view", Rows: -1})

		require.NoError(t, u.Views.ReplaceView(ctx, domain.View{Name: "recent", Body: "SELECT title FROM notes"}, true, nil))
		o, err = u.Reader.Object(ctx, "recent")
		require.NoError(t, err)
		assert.Contains(t, o.SQL, "SELECT title FROM notes", "replaced")
		assert.NotContains(t, o.SQL, "ORDER BY id DESC")
	})
	t.Run("a refused view stores nothing and seals nothing", func(t *testing.T) {
		u := notes(t)
		audited := false
		err := u.Views.ReplaceView(ctx, domain.View{Name: "notes", Body: "SELECT 1"}, false,
			func(string) domain.AuditEntry { audited = true; return domain.AuditEntry{} })
		require.Error(t, err, "a table of that name")
		var de *domain.Error
		assert.True(t, errors.As(err, &de), "a *domain.Error the agent can read: %v", err)
		assert.False(t, audited)
		o, err := u.Reader.Object(ctx, "notes")
		require.NoError(t, err)
		assert.Equal(t, "table", o.Type, "the table is still there")
	})
}

func assertNotFound(t *testing.T, err error) {
	t.Helper()
	require.ErrorIs(t, err, domain.ErrNotFound)
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	assert.NotEmpty(t, de.Message)
}
