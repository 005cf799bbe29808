package schema_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/schema"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestViewDDL(t *testing.T) {
	for _, tc := range []struct{ name, view, description, body, want string }{
		{
			"with description", "recent", "newest notes first", "SELECT id, title FROM notes ORDER BY id DESC",
			"CREATE VIEW \"recent\" AS\n-- description: newest notes first\nSELECT id, title FROM notes ORDER BY id DESC",
		},
		{
			"description collapsed onto one comment line", "recent", "  newest\nnotes\n\nDROP TABLE x ", "SELECT 1",
			"CREATE VIEW \"recent\" AS\n-- description: newest notes DROP TABLE x\nSELECT 1",
		},
		{"no description", "recent", "", "SELECT 1", "CREATE VIEW \"recent\" AS\nSELECT 1"},
		{"blank description", "recent", " \n\t", "SELECT 1", "CREATE VIEW \"recent\" AS\nSELECT 1"},
		{"quoted name", `a"b`, "", "SELECT 1", "CREATE VIEW \"a\"\"b\" AS\nSELECT 1"},
	} {
		assert.Equal(t, tc.want, schema.ViewDDL(domain.View{Name: tc.view, Description: tc.description, Body: tc.body}), tc.name)
	}
}
