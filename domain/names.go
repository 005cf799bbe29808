package domain

import "strings"

// ServerTables are the tables the server creates and keeps append-only.
var ServerTables = []string{"memory_events", "memory_checkpoints", "query_log", ApprovalsTable, ApprovalDecisionsTable, "memory_head_signatures", RetractionsTable, ProvenanceTable}

// The approval queue's tables: the questions waiting for a person, and
// the decisions on them (docs/decisions.md#confirmation). Both are
// append-only; the agent can read them but never write them.
const (
	ApprovalsTable         = "mcp_approvals"
	ApprovalDecisionsTable = "mcp_approval_decisions"
)

// ServerViews are the views the server creates.
var ServerViews = []string{"query_errors"}

// IsServerTable reports whether name is one of [ServerTables], or
// search_memory's index ([MemoryIndex]) or one of its shadow tables, which
// only the server writes. The comparison ignores ASCII letter case, as
// SQLite does for identifiers.
func IsServerTable(name string) bool {
	return containsFold(ServerTables, name) || isMemoryIndexTable(name)
}

// IsServerObject reports whether name is one of [ServerTables] or
// [ServerViews], ignoring ASCII letter case.
func IsServerObject(name string) bool {
	return IsServerTable(name) || containsFold(ServerViews, name)
}

// IsInternalName reports whether name is reserved for SQLite itself: it starts
// with exactly "sqlite_" in any letter case. The underscore is a literal
// character here, not a LIKE wildcard, so "sqlitedata" is a user name (docs/decisions.md#fixes-over-the-reference, item 3).
func IsInternalName(name string) bool {
	const prefix = "sqlite_"
	return len(name) >= len(prefix) && equalFoldASCII(name[:len(prefix)], prefix)
}

// ValidateViewName returns the stripped view name when it is a plain
// identifier that is not a server object. A malformed name is
// [ErrInvalidArgument]; a server table or view name, in any letter case, is
// [ErrConflict] (create_view never replaces query_errors:
// docs/decisions.md#fixes-over-the-reference, item 4).
func ValidateViewName(name string) (string, error) {
	name = StripSpace(name)
	if !isPlainIdent(name) {
		return "", Errorf(ErrInvalidArgument, "view name must match [A-Za-z_][A-Za-z0-9_]*")
	}
	if IsServerObject(name) {
		return "", Errorf(ErrConflict, "%s is a server object; pick another name", name)
	}
	return name, nil
}

// NormalizeViewBody prepares create_view's select_sql: stripped, then every
// trailing ";" removed, then stripped again (Python's
// sql.strip().rstrip(";").strip()). An empty result is [ErrInvalidArgument].
func NormalizeViewBody(sql string) (string, error) {
	body := StripSpace(sql)
	body = strings.TrimRight(body, ";")
	body = StripSpace(body)
	if body == "" {
		return "", Errorf(ErrInvalidArgument, "select_sql must not be empty")
	}
	return body, nil
}

// CollapseSpace splits s on whitespace and joins the words with single
// spaces, as Python's " ".join(s.split()) does. The result holds no line
// break, so it is safe inside an SQL "--" comment.
func CollapseSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, isPythonSpace), " ")
}

// isPlainIdent reports whether s matches ^[A-Za-z_][A-Za-z0-9_]*$.
func isPlainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// equalFoldASCII compares a and b ignoring ASCII letter case only, as SQLite
// compares identifiers (Go's strings.EqualFold also folds, e.g., the Kelvin
// sign into "k", which SQLite does not).
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// toLowerASCII lower-cases the ASCII letters of s and leaves every other byte.
func toLowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}

func containsFold(list []string, name string) bool {
	for _, n := range list {
		if equalFoldASCII(n, name) {
			return true
		}
	}
	return false
}
