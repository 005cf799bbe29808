package schema

import (
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// viewDDL is the statement that stores v: `CREATE VIEW "<name>" AS`, a
// newline, then `-- description: <collapsed description>` and a newline
// when the collapsed description is not empty, then the body. get_schema
// shows the stored text as is, so the description travels with the view;
// collapsed onto one line, it cannot end the comment.
func viewDDL(v domain.View) string {
	var b strings.Builder
	b.WriteString("CREATE VIEW ")
	b.WriteString(sqlite.QuoteIdent(v.Name))
	b.WriteString(" AS\n")
	if d := domain.CollapseSpace(v.Description); d != "" {
		b.WriteString("-- description: ")
		b.WriteString(d)
		b.WriteString("\n")
	}
	b.WriteString(v.Body)
	return b.String()
}
