package domain_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TestPragmaRefusalsNeverContradictThemselves checks every PRAGMA refusal,
// with and without a value, in every tier: a refusal never names the refused
// pragma among the allowed examples, and a refusal that says to read the
// pragma without a value is given only for a pragma that is allowed so.
func TestPragmaRefusalsNeverContradictThemselves(t *testing.T) {
	names := []string{"table_info", "table_xinfo", "table_list", "index_list", "index_info",
		"index_xinfo", "foreign_key_list", "foreign_key_check", "function_list", "collation_list",
		"compile_options", "integrity_check", "quick_check",
		"journal_mode", "user_version", "schema_version", "application_id",
		"page_count", "page_size", "freelist_count", "data_version", "encoding", "foreign_keys",
		"synchronous", "cache_size", "busy_timeout", "query_only", "auto_vacuum", "max_page_count",
		"mmap_size", "temp_store", "wal_autocheckpoint",
		"writable_schema", "locking_mode", "optimize", "wal_checkpoint", "secure_delete", "trusted_schema",
		"cell_size_check", "recursive_triggers", "shrink_memory", "incremental_vacuum", "database_list"}
	examples := regexp.MustCompile(`\(([^)]*)\)`)
	for _, tier := range allTiers {
		p := domain.Policy{Tier: tier}
		for _, name := range names {
			for _, spelled := range []string{name, strings.ToUpper(name)} {
				bare := p.Check(domain.AuthRequest{Action: domain.ActionPragma, Arg1: spelled})
				valued := p.Check(domain.AuthRequest{Action: domain.ActionPragma, Arg1: spelled, Arg2: "1"})
				for _, msg := range []string{bare, valued} {
					if msg == "" {
						continue
					}
					assert.True(t, strings.HasPrefix(msg, "PRAGMA "+spelled+" "), "%s names the pragma first: %s", tier.Tool(), msg)
					for _, m := range examples.FindAllStringSubmatch(msg, -1) {
						for _, ex := range strings.Split(m[1], ", ") {
							assert.NotEqual(t, name, strings.ToLower(ex), "%s: %s is refused and shown as allowed: %s", tier.Tool(), spelled, msg)
						}
					}
				}
				if strings.Contains(valued, "without a value") && strings.Contains(valued, "read it") {
					assert.Empty(t, bare, "%s: told to read %s without a value, which is refused", tier.Tool(), spelled)
				}
				if bare == "" && valued != "" {
					assert.Contains(t, valued, "without a value", "%s: %s is allowed bare; the refusal with a value says so", tier.Tool(), spelled)
				}
			}
		}
	}
}
