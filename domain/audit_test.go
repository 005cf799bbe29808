package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestLateEntryMark(t *testing.T) {
	e := domain.AuditEntry{Tool: "read_query", Error: "mem.db is locked"}
	assert.Equal(t, `{"late": true, "late_reason": "locked \"x\""}`, e.Late(`locked "x"`, 0).Detail)
	assert.Equal(t, `{"late": true, "late_reason": "r", "lost_before": 4}`, e.Late("r", 4).Detail)
	e.Detail = `{"limit": 5}`
	assert.Equal(t, `{"late": true, "late_reason": "r", "detail": {"limit": 5}}`, e.Late("r", 0).Detail)
	assert.Equal(t, "mem.db is locked", e.Late("r", 0).Error, "only the detail changes")
}
