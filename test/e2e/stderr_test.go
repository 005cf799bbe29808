package e2e_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
)

// TestMessagesLeaveOutOnlyInformationalRecords: Messages drops INFO and
// DEBUG records and keeps what a "one line" promise is about: the
// program's own lines and any WARN or ERROR record.
func TestMessagesLeaveOutOnlyInformationalRecords(t *testing.T) {
	t.Parallel()
	stderr := `time=2026-12-02T05:35:05.259Z level=INFO msg="ripgrep not found; search_text uses the in-process regexp2 engine" rg=rg
time=2026-12-02T05:35:05.260Z level=DEBUG msg=opened
mcp-sqlite-memory: --audit-db must be another file than --db
time=2026-12-02T05:35:05.261Z level=WARN msg="could not remove the lock"
time=2026-12-02T05:35:05.262Z level=ERROR msg=failed
`
	assert.Equal(t, []string{
		"mcp-sqlite-memory: --audit-db must be another file than --db",
		`time=2026-12-02T05:35:05.261Z level=WARN msg="could not remove the lock"`,
		"time=2026-12-02T05:35:05.262Z level=ERROR msg=failed",
	}, e2e.Messages(stderr))
	assert.Empty(t, e2e.Messages(""))
}
