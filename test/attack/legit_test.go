package attack_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// legitimateReads must never be refused by read_query: neither layer of
// the read tier (the authorizer, the compiled-program check) may mistake
// work tables, temp b-trees, virtual tables or introspection for writes.
var legitimateReads = []string{
	// FTS5
	"SELECT rowid, title FROM docs WHERE docs MATCH 'apples'",
	"SELECT highlight(docs, 1, '[', ']') FROM docs WHERE docs MATCH 'banana*' ORDER BY rank",
	"SELECT snippet(docs, 1, '[', ']', '...', 5) FROM docs('apples')",
	"SELECT title, bm25(docs) FROM docs WHERE docs MATCH 'title:alpha OR body:ban*'",
	"SELECT count(*) FROM bigdocs WHERE bigdocs MATCH 'word1*'",
	// JSON
	`SELECT json_extract('{"a":{"b":[1,2]}}', '$.a.b[1]')`,
	`SELECT key, value FROM json_each('[1,2,{"x":3}]')`,
	`SELECT fullkey, type FROM json_tree('{"a":[1,2]}')`,
	"SELECT json_group_array(title), json_group_object(id, title) FROM notes",
	`SELECT '{"a":1}' ->> '$.a', '{"a":[5]}' -> '$.a'`,
	"SELECT json_object('id', id, 'tags', (SELECT json_group_array(tag) FROM tags WHERE note_id = notes.id)) FROM notes",
	// Recursive CTEs with a bound
	"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 50) SELECT sum(x) FROM c",
	"WITH RECURSIVE t(id, depth) AS (SELECT 1, 0 UNION ALL SELECT id + 1, depth + 1 FROM t WHERE depth < 5) SELECT * FROM t",
	"WITH RECURSIVE c(x) AS (SELECT 1 UNION SELECT x + 1 FROM c WHERE x < 20) SELECT group_concat(x) FROM c",
	// Window functions
	"SELECT id, title, row_number() OVER (ORDER BY title DESC), sum(id) OVER w FROM notes WINDOW w AS (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
	"SELECT v, lag(v) OVER (ORDER BY id), ntile(3) OVER (ORDER BY id), rank() OVER (PARTITION BY v % 3 ORDER BY v) FROM bulk",
	// Introspection pragmas and their table-valued functions
	"PRAGMA table_info(notes)",
	"PRAGMA table_info('notes')",
	"PRAGMA main.table_info(notes)",
	"PRAGMA table_xinfo(notes)",
	"PRAGMA index_list(tags)",
	"PRAGMA index_info(tags_note)",
	"PRAGMA index_xinfo(tags_note)",
	"PRAGMA foreign_key_list(tags)",
	"PRAGMA foreign_key_check",
	"PRAGMA table_list",
	"PRAGMA integrity_check",
	"PRAGMA quick_check",
	"PRAGMA function_list",
	"PRAGMA collation_list",
	"PRAGMA compile_options",
	"SELECT * FROM pragma_table_info('notes')",
	"SELECT name FROM pragma_table_info('notes') WHERE pk = 1",
	"SELECT m.name, p.name FROM sqlite_schema m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'",
	"SELECT * FROM pragma_index_list('tags'), pragma_foreign_key_list('tags')",
	"SELECT * FROM pragma_table_list WHERE type = 'shadow'",
	// Value-less reads of the read-state pragmas
	"PRAGMA journal_mode",
	"PRAGMA user_version",
	"PRAGMA application_id",
	"PRAGMA schema_version",
	"PRAGMA page_count",
	"PRAGMA page_size",
	"PRAGMA freelist_count",
	"PRAGMA data_version",
	"PRAGMA encoding",
	"PRAGMA foreign_keys",
	"PRAGMA synchronous",
	"PRAGMA cache_size",
	"PRAGMA busy_timeout",
	"PRAGMA query_only",
	"PRAGMA auto_vacuum",
	"PRAGMA max_page_count",
	"PRAGMA mmap_size",
	"PRAGMA temp_store",
	"PRAGMA wal_autocheckpoint",
	// EXPLAIN of reads
	"EXPLAIN QUERY PLAN SELECT * FROM notes WHERE id = 1",
	"EXPLAIN QUERY PLAN SELECT * FROM tags WHERE note_id = 1",
	"EXPLAIN SELECT * FROM notes",
	"EXPLAIN SELECT * FROM docs WHERE docs MATCH 'x'",
	// R*Tree
	"SELECT * FROM boxes WHERE minx >= 0 AND maxx <= 5",
	"SELECT count(*) FROM bigboxes WHERE a > 10",
	// Temp b-trees: DISTINCT, UNION, ORDER BY, GROUP BY, automatic indexes
	"SELECT DISTINCT tag FROM tags",
	"SELECT title FROM notes UNION SELECT tag FROM tags ORDER BY 1",
	"SELECT title FROM notes UNION ALL SELECT tag FROM tags",
	"SELECT title FROM notes INTERSECT SELECT title FROM notes",
	"SELECT v FROM bulk EXCEPT SELECT v FROM bulk WHERE v > 10",
	"SELECT tag, count(*) FROM tags GROUP BY tag ORDER BY count(*) DESC",
	"SELECT * FROM notes ORDER BY body COLLATE NOCASE, title DESC",
	"SELECT n.title, t.tag FROM notes n JOIN tags t ON t.note_id = n.id",
	"SELECT a.id FROM bulk a JOIN bulk_wr b ON b.v = a.v WHERE a.v % 10 = 0",
	"SELECT * FROM notes WHERE id IN (SELECT note_id FROM tags)",
	"SELECT * FROM (SELECT * FROM notes LIMIT 2) ORDER BY id DESC",
	"SELECT count(*) FILTER (WHERE id > 1), group_concat(title, ';') FROM notes",
	// The schema and every kind of table
	"SELECT * FROM sqlite_schema",
	"SELECT name, sql FROM sqlite_master WHERE type = 'trigger'",
	"SELECT * FROM temp.sqlite_schema",
	"SELECT * FROM sqlite_temp_master",
	"SELECT * FROM sqlite_sequence",
	"SELECT * FROM query_log ORDER BY id DESC",
	"SELECT * FROM query_errors",
	"SELECT id, kind, content FROM memory_events ORDER BY id DESC",
	"SELECT * FROM memory_checkpoints",
	"SELECT * FROM v_notes",
	`SELECT * FROM "odd ""quoted"" name"`,
	"SELECT * FROM dates",
	"SELECT * FROM kv WHERE k > 'a'",
	"SELECT * FROM docs_stat",
	"SELECT * FROM sqlitedata",
	"SELECT count(*) FROM docs_data",
	// Plain functions
	"SELECT typeof(1), quote(x'00'), length(randomblob(4)), unicode('é'), char(65), printf('%5.2f', 3.14159), format('%d', 3)",
	"SELECT abs(-1), round(2.5), instr('abc', 'b'), substr('hello', 2, 3), trim('  x '), upper('a'), like('a%', 'abc'), glob('a*', 'abc')",
	"SELECT date('now') IS NOT NULL, strftime('%Y', '2024-01-02'), julianday('2024-01-02'), unixepoch('2024-01-02')",
	"SELECT sqlite_version() IS NOT NULL, changes(), total_changes(), last_insert_rowid()",
	"SELECT iif(1, 'a', 'b'), coalesce(NULL, 2), nullif(1, 1), ifnull(NULL, 3), CASE WHEN 1 THEN 'x' END",
	"VALUES (1, 'a'), (2, 'b')",
	"SELECT 1 /* c */",
}

// TestLegitimateReadsAreNeverRefused runs each read through the store and
// through read_query, then checks nothing changed.
func TestLegitimateReadsAreNeverRefused(t *testing.T) {
	env := fresh(t)
	in := inspect(t, env)
	before := in.snapshot(t)
	for _, q := range legitimateReads {
		t.Run(caseName(q), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), corpusLimits().QueryTimeout)
			defer cancel()
			rows := 0
			err := env.Statements.Read(ctx, q, func([]string) {}, func([]any) bool { rows++; return rows < 1000 })
			assert.NoError(t, err, "adapter")
			text, isErr := env.Call(t, "read_query", map[string]any{"query": q})
			assert.False(t, isErr, "read_query refused a legitimate read: %s", text)
		})
	}
	after := in.snapshot(t)
	check(t, "after the legitimate reads", before, after, true, 0, false)
	assert.Len(t, env.audit.all(), len(legitimateReads), "one audit entry per call")
	require.Equal(t, baselineConnState(t), connState(t, env.Store))
}
