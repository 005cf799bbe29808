package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// Adapter-level attacks: the authorizer alone (the EXPLAIN layer switched
// off) refuses what the read tier must refuse, the pooled connections keep
// their safety settings from one call to the next, the UPDATE guard counts
// rows in every kind of table, and the deadline stops runaway statements in
// every tier. test/attack runs the full corpus through the MCP layer.

// attackSchema is a small database with every kind of table the attacks
// aim at.
var attackSchema = []string{
	"CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL)",
	"INSERT INTO notes (title) VALUES ('alpha'), ('beta')",
	"CREATE TABLE trap (id INTEGER PRIMARY KEY)",
	"CREATE TRIGGER trap_purge AFTER INSERT ON trap BEGIN DELETE FROM notes; END",
	"CREATE VIRTUAL TABLE docs USING fts5 (body)",
	"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) INSERT INTO docs (rowid, body) SELECT x, 'word' || x FROM c",
	"CREATE VIRTUAL TABLE boxes USING rtree (id, a, b)",
	"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) INSERT INTO boxes SELECT x, x, x + 1 FROM c",
	"CREATE TABLE wr (k INTEGER PRIMARY KEY, v INTEGER) WITHOUT ROWID",
	"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) INSERT INTO wr SELECT x, x FROM c",
}

// mustAttackStore builds the attack database and opens it with opts.
func mustAttackStore(t *testing.T, opts sqlite.Options) *testDB {
	t.Helper()
	if opts.QueryTimeout == 0 {
		opts.QueryTimeout = time.Second
	}
	s, err := openTestDB(context.Background(), filepath.Join(t.TempDir(), "attack.db"), opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	for _, q := range attackSchema {
		_, err := attackWrite(s, domain.TierDestructive, q, 0)
		require.NoError(t, err, q)
	}
	return s
}

func attackWrite(s *testDB, tier domain.Tier, q string, maxUpdateRows int) (domain.WriteResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return s.Write(ctx, domain.WriteRequest{Tier: tier, SQL: q, MaxUpdateRows: maxUpdateRows}, func([]string) {}, func([]any) bool { return true })
}

func attackRead(s *testDB, q string) ([][]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var rows [][]any
	err := s.Read(ctx, q, func([]string) {}, func(r []any) bool {
		rows = append(rows, append([]any(nil), r...))
		return len(rows) < 1000
	})
	return rows, err
}

// attackContent is everything the attacks below would change.
func attackContent(t *testing.T, s *testDB) [][]any {
	t.Helper()
	rows, err := attackRead(s, `SELECT (SELECT group_concat(type || name || coalesce(sql, ''), char(10)) FROM sqlite_schema),
  (SELECT group_concat(id || title) FROM notes), (SELECT group_concat(rowid || body) FROM docs),
  (SELECT group_concat(id || a || b) FROM boxes), (SELECT group_concat(k || v) FROM wr),
  (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM query_log)`)
	require.NoError(t, err)
	return rows
}

// readTierAttacks must be refused by the authorizer itself, with the
// EXPLAIN layer off, each with the kind given.
var readTierAttacks = []struct {
	sql  string
	kind error
}{
	{"INSERT INTO notes (title) VALUES ('x')", domain.ErrPolicy},
	{"/* c */ iNsErT INTO NOTES (title) VALUES ('x')", domain.ErrPolicy},
	{"WITH x AS (SELECT 1) UPDATE notes SET title = 'x'", domain.ErrPolicy},
	{"WITH x AS (SELECT 1) DELETE FROM notes", domain.ErrPolicy},
	{"REPLACE INTO notes (id, title) VALUES (1, 'x')", domain.ErrPolicy},
	{"INSERT INTO trap DEFAULT VALUES", domain.ErrPolicy},
	{"EXPLAIN DELETE FROM notes", domain.ErrPolicy},
	{"EXPLAIN QUERY PLAN UPDATE notes SET title = 'x'", domain.ErrPolicy},
	{"CREATE TABLE t (a)", domain.ErrPolicy},
	{"CREATE INDEX ix ON notes (title)", domain.ErrPolicy},
	{"CREATE VIEW v AS SELECT 1", domain.ErrPolicy},
	{"CREATE TRIGGER t1 AFTER INSERT ON notes BEGIN SELECT 1; END", domain.ErrPolicy},
	{"CREATE VIRTUAL TABLE v USING fts5 (a)", domain.ErrPolicy},
	{"DROP TABLE notes", domain.ErrPolicy},
	{"ALTER TABLE notes RENAME TO n2", domain.ErrPolicy},
	{"REINDEX", domain.ErrPolicy},
	{"ANALYZE", domain.ErrPolicy},
	{"ATTACH ':memory:' AS m", domain.ErrPolicy},
	{"DETACH main", domain.ErrPolicy},
	{"VACUUM", domain.ErrPolicy},
	{"VACUUM INTO '{{dir}}/copy.db'", domain.ErrPolicy},
	{";VACUUM", domain.ErrPolicy},
	{"PRAGMA journal_mode = delete", domain.ErrPolicy},
	{"PRAGMA query_only = 0", domain.ErrPolicy},
	{"PRAGMA query_only = ''", domain.ErrPolicy},
	{";PRAGMA query_only = ''", domain.ErrPolicy},
	{"PRAGMA user_version = 3", domain.ErrPolicy},
	{"PRAGMA writable_schema = 1", domain.ErrPolicy},
	{"SELECT * FROM pragma_writable_schema", domain.ErrPolicy},
	{"SELECT load_extension('evil')", domain.ErrPolicy},
	{"CREATE TEMP TABLE t (a)", domain.ErrPolicy},
	{"CREATE TABLE temp.t (a)", domain.ErrPolicy},
	{"BEGIN", domain.ErrPolicy},
	{"SAVEPOINT a", domain.ErrPolicy},
	{"INSERT INTO query_log (ts, session, tool, ok, duration_ms) VALUES ('t', 's', 'x', 1, 0)", domain.ErrPolicy},
	{"UPDATE sqlite_dbpage SET data = zeroblob(4096) WHERE pgno = 1", domain.ErrPolicy},
	{"DELETE FROM docs_data", domain.ErrSQLite},
	{"UPDATE sqlite_master SET sql = ''", domain.ErrSQLite},
	{"SELECT 1; DELETE FROM notes", domain.ErrInvalidArgument},
	{"SELECT ?", domain.ErrInvalidArgument},
}

func TestAuthorizerAloneRefusesReadTierAttacks(t *testing.T) {
	for _, c := range readTierAttacks {
		t.Run(c.sql, func(t *testing.T) {
			s := mustAttackStore(t, sqlite.WithoutProgramCheck(sqlite.Options{}))
			want := attackContent(t, s)
			dir := filepath.Dir(s.Path())
			_, err := attackRead(s, strings.ReplaceAll(c.sql, "{{dir}}", dir))
			assert.ErrorIs(t, err, c.kind)
			rows, err := attackRead(s, "PRAGMA query_only")
			require.NoError(t, err)
			assert.Equal(t, [][]any{{int64(1)}}, rows, "query_only must hold for the next read")
			assert.Equal(t, want, attackContent(t, s))
			files, err := os.ReadDir(dir)
			require.NoError(t, err)
			for _, f := range files {
				assert.Contains(t, []string{"attack.db", "attack.db-wal", "attack.db-shm"}, f.Name(), "no file appears next to the database")
			}
		})
	}
}

// connectionSettings is what each tier's pooled connection says about the
// settings an attack could try to change for the next call.
func connectionSettings(t *testing.T, s *testDB) []string {
	t.Helper()
	var out []string
	for _, p := range []string{"query_only", "foreign_keys", "synchronous", "busy_timeout", "cache_size", "wal_autocheckpoint", "mmap_size", "temp_store"} {
		rows, err := attackRead(s, "PRAGMA "+p)
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("read %s=%v", p, rows))
		var got [][]any
		_, err = s.Write(context.Background(), domain.WriteRequest{Tier: domain.TierWrite, SQL: "PRAGMA " + p},
			func([]string) {}, func(r []any) bool { got = append(got, append([]any(nil), r...)); return true })
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("write %s=%v", p, got))
	}
	for _, tier := range []domain.Tier{domain.TierRead, domain.TierWrite} {
		// Defensive mode refuses a direct write to a real shadow table.
		var err error
		if tier == domain.TierRead {
			_, err = attackRead(s, "DELETE FROM docs_data WHERE 0")
		} else {
			_, err = attackWrite(s, tier, "DELETE FROM docs_data WHERE 0", 0)
		}
		out = append(out, fmt.Sprintf("%s defensive refuses: %v", tier.Tool(), err != nil))
	}
	return out
}

func TestPooledConnectionsKeepTheirSafetySettings(t *testing.T) {
	attacks := []string{
		"PRAGMA query_only = ''",
		";PRAGMA query_only = ''",
		" ; PRAGMA query_only = ''",
		";EXPLAIN PRAGMA query_only = ''",
		"-- c\n;PRAGMA foreign_keys = ''",
		";;PRAGMA synchronous = ''",
		";PRAGMA wal_autocheckpoint = ''",
		";PRAGMA cache_size = ''",
		";PRAGMA mmap_size = ''",
		";PRAGMA temp_store = ''",
		";PRAGMA busy_timeout = ''",
		"\ufeffPRAGMA query_only = ''",
		"PRAGMA wal_autocheckpoint \ufeff= ''",
		"EXPLAIN \ufeffPRAGMA cache_size = ''",
		"PRAGMA foreign_keys = ON",
		"PRAGMA writable_schema = ON",
		"PRAGMA trusted_schema = ON",
		"PRAGMA recursive_triggers = ON",
		"PRAGMA busy_timeout = 0",
	}
	for _, q := range attacks {
		t.Run(q, func(t *testing.T) {
			s := mustAttackStore(t, sqlite.Options{})
			want := connectionSettings(t, s)
			content := attackContent(t, s)
			_, err := attackRead(s, q)
			assert.ErrorIs(t, err, domain.ErrPolicy, "read_query")
			_, err = attackWrite(s, domain.TierWrite, q, 0)
			assert.ErrorIs(t, err, domain.ErrPolicy, "write_query")
			assert.Equal(t, want, connectionSettings(t, s), "the next call runs with changed settings")
			assert.Equal(t, content, attackContent(t, s))
		})
	}
}

func TestUpdateGuardCountsRowsInEveryKindOfTable(t *testing.T) {
	const limit = 5 // every table below has 10 rows
	for _, q := range []string{
		"UPDATE wr SET v = v + 1",
		"REPLACE INTO wr SELECT k, v FROM wr",
		"UPDATE docs SET body = 'gone'",
		"INSERT OR REPLACE INTO docs (rowid, body) SELECT rowid, body FROM docs",
		"UPDATE boxes SET a = a - 1",
		"INSERT OR REPLACE INTO boxes SELECT id, a, b FROM boxes",
	} {
		t.Run(q, func(t *testing.T) {
			s := mustAttackStore(t, sqlite.Options{})
			want := attackContent(t, s)
			_, err := attackWrite(s, domain.TierWrite, q, limit)
			assert.ErrorIs(t, err, domain.ErrGuard)
			assert.Equal(t, want, attackContent(t, s), "rolled back")
		})
	}
}

func TestDeadlineStopsRunawayStatementsInEveryTier(t *testing.T) {
	s := mustAttackStore(t, sqlite.Options{})
	want := attackContent(t, s)
	const loop = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
	for _, tier := range []domain.Tier{domain.TierRead, domain.TierWrite, domain.TierDestructive} {
		start := time.Now()
		var err error
		if tier == domain.TierRead {
			_, err = attackRead(s, loop+"SELECT count(*) FROM c")
		} else {
			_, err = attackWrite(s, tier, loop+"INSERT INTO notes (title) SELECT x FROM c", 0)
		}
		assert.ErrorIs(t, err, domain.ErrTimeout, tier.Tool())
		assert.Less(t, time.Since(start), slack.Of(5*time.Second), tier.Tool())
		assert.Equal(t, want, attackContent(t, s), "%s: nothing written", tier.Tool())
		_, err = attackWrite(s, domain.TierWrite, "UPDATE notes SET title = title WHERE id = 1", 0)
		assert.NoError(t, err, "%s: the next write works (no transaction left open)", tier.Tool())
	}
}
