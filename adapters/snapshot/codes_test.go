package snapshot

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"modernc.org/sqlite"
)

// The result codes named in backup.go are SQLite's, as the driver names them.
func TestResultCodesAreSQLites(t *testing.T) {
	for code, name := range map[int]string{codeBusy: "SQLITE_BUSY", codeLocked: "SQLITE_LOCKED", codeCorrupt: "SQLITE_CORRUPT", codeNotADB: "SQLITE_NOTADB"} {
		assert.True(t, strings.HasSuffix(sqlite.ErrorCodeString[code], "("+name+")"), "code %d is %s, not %s", code, sqlite.ErrorCodeString[code], name)
	}
}
