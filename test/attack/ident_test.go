package attack_test

import "strings"

// sqlIdent quotes name as an SQL identifier for the tests' own queries,
// which they run on their own database/sql connections.
func sqlIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
