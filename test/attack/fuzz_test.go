package attack_test

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// FuzzPolicy runs random and mutated SQL through read_query, write_query
// and destructive_query on a real database and checks, after every call,
// that nothing changed that the tier does not allow:
//
//   - the call returns success or a *domain.Error, and the core logged no
//     error it could not translate;
//   - query_log gained exactly the call's own audit row, which records its
//     outcome, and its old rows are as they were; memory_events,
//     memory_checkpoints and the server's schema entries are byte for byte
//     as they were;
//   - a refused call, and any read_query, left every table, the schema, the
//     file header and the files beside the database as they were;
//   - an allowed write_query kept the file header, dropped or altered no
//     schema entry and table, and changed or overwrote at most the UPDATE
//     guard's number of existing rows (it may not delete any: only REPLACE
//     and upsert overwrite);
//   - an allowed destructive_query left a snapshot file behind;
//   - after an allowed write the memory chain still verifies;
//   - the pooled connections kept their safety settings, SELECT 1 still
//     works, and no file appeared in this package's folder.
//
// The seeds are the attack corpus, the legitimate reads, the SQL of the
// argument tricks and of the read-only corpus, plus a few more; `go test`
// runs them as ordinary cases. Under the race detector, outside fuzzing,
// only a fixed sample of them runs (see seedSample).
func FuzzPolicy(f *testing.F) {
	for _, s := range seedSample(fuzzSeeds(f)) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		w := theWorld(t)
		q := w.expand(query)
		pkg := names(".")
		state := w.start(t)
		for i, tier := range allTiers {
			state = w.try(t, tier, q, state, i == len(allTiers)-1)
		}
		assert.Equal(t, w.baseConns, connState(t, w.env.Store), "the pooled connections changed state")
		// query_log grows by four rows an input, each holding the input,
		// and every check dumps it.
		if t.Failed() || logGrowth(w.base.Log, state.Log) > maxLogGrowth {
			w.restore(t)
			state = w.in.snapshot(t)
		}
		w.next = &state
		if extra := added(pkg, names(".")); len(extra) > 0 {
			assert.Fail(t, "files appeared in the package folder", "%q", extra)
			for _, n := range extra {
				os.RemoveAll(n)
			}
		}
	})
}

// maxLogGrowth is how many bytes of audit rows the world's query_log may
// gain before it is put back to the template's.
const maxLogGrowth = 32 << 10

// logGrowth is the size of the rows after has beyond base.
func logGrowth(base, after []string) int {
	n := 0
	for _, r := range after[min(len(base), len(after)):] {
		n += len(r)
	}
	return n
}

// raceSeeds is how many seeds run under the race detector outside fuzzing.
// Every seed runs in the plain `go test` run and at the start of every
// fuzzing run; with the race detector one input costs about a second, and
// the attack corpus itself already runs in every tier in TestAttackCorpus.
const raceSeeds = 40

// seedSample returns seeds, or under the race detector outside fuzzing an
// evenly spread, fixed sample of raceSeeds of them.
func seedSample(seeds []string) []string {
	if fl := flag.Lookup("test.fuzz"); !raceEnabled || (fl != nil && fl.Value.String() != "") {
		return seeds
	}
	var out []string
	for i := 0; i < len(seeds); i += max(1, len(seeds)/raceSeeds) {
		out = append(out, seeds[i])
	}
	return out
}

// start returns the state the previous input left, which its last check
// dumped. When there is none (the first input, or one that stopped
// half-way) the world starts again from the template.
func (w *fuzzWorld) start(t *testing.T) snapshot {
	t.Helper()
	next := w.next
	w.next = nil
	if next != nil {
		return *next
	}
	if w.used {
		w.restore(t)
	}
	w.used = true
	return w.in.snapshot(t)
}

// try runs q as one tier's tool, checks what the tier allows against
// before, the state before the call, and returns the state after it. After
// the last tier it also runs SELECT 1 through read_query, which must work
// whatever the input did; its audit row joins that tier's check.
func (w *fuzzWorld) try(t *testing.T, tier domain.Tier, q string, before snapshot, last bool) snapshot {
	t.Helper()
	level := tier.Tool()
	out, err := w.call(tier, q)
	msg := ""
	if err != nil {
		msg = err.Error()
		var de *domain.Error
		assert.True(t, errors.As(err, &de), "%s: the error must be a *domain.Error, got %T: %v", level, err, err)
		if !strings.Contains(q, w.env.Dir) {
			assert.NotContains(t, msg, w.env.Dir, "%s: the error names the database's folder", level)
		}
	}
	audits := 1
	if last {
		_, err := w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1})
		assert.NoError(t, err, "SELECT 1 fails after the input")
		audits++
	}
	assert.Empty(t, w.logs.take(), "%s: the core logged an error it could not translate", level)
	wrote := err == nil && tier != domain.TierRead
	after := w.in.snapshot(t)
	if tier == domain.TierDestructive {
		// Snapshots of earlier calls are rotated away; check ignores the
		// folder after the call, so it must before too.
		before.Files = slices.DeleteFunc(slices.Clone(before.Files), func(f string) bool {
			return strings.HasPrefix(f, "test.snapshots"+string(filepath.Separator))
		})
	}
	check(t, level, before, after, !wrote, audits, tier == domain.TierDestructive)
	if n := len(after.Log); n >= audits {
		row := dumpValues(after.Log[n-audits], 9) // rowid|id|ts|session|tool|query|ok|rows|error
		if assert.Len(t, row, 9, "%s: the audit row", level) {
			assert.Equal(t, level, row[4], "%s: the audit row names the tool", level)
			assert.Equal(t, map[bool]string{true: "1", false: "0"}[err == nil], row[6], "%s: the audit row records the outcome", level)
			assert.Equal(t, msg, row[8], "%s: the audit row records the message the agent saw", level)
		}
	}
	assert.Equal(t, serverSchema(before), serverSchema(after), "%s: the server's schema entries changed", level)
	if !wrote && !t.Failed() {
		return after
	}
	if wrote {
		w.checkWrite(t, tier, out, before, after)
	}
	// The pooled connections are about to be replaced: check them now.
	assert.Equal(t, w.baseConns, connState(t, w.env.Store), "%s: the pooled connections changed state", level)
	w.restore(t)
	return w.in.snapshot(t)
}

// call runs q through the core as the tier's tool.
func (w *fuzzWorld) call(tier domain.Tier, q string) (string, error) {
	ctx := context.Background()
	switch tier {
	case domain.TierRead:
		return text(w.svc.ReadQuery(ctx, domain.ReadQueryRequest{Query: q, Limit: w.limits.DefaultLimit}))
	case domain.TierWrite:
		return text(w.svc.WriteQuery(ctx, domain.WriteQueryRequest{Query: q}))
	}
	return text(w.svc.DestructiveQuery(ctx, domain.DestructiveQueryRequest{Query: q, Reason: "fuzz"}))
}

// checkWrite checks an allowed write_query or destructive_query beyond what
// check covers: the header, the schema and rows the tier may not touch, the
// snapshot, and the chain.
func (w *fuzzWorld) checkWrite(t *testing.T, tier domain.Tier, out string, before, after snapshot) {
	t.Helper()
	level := tier.Tool()
	// No tier may set a pragma or VACUUM; DDL moves only schema_version.
	assert.Equal(t, withoutSchemaVersion(before.Header), withoutSchemaVersion(after.Header), "%s: file header changed", level)
	if r := w.verifyChain(t); !r.OK {
		assert.Fail(t, level+": the memory chain no longer verifies", r.JSON())
	}
	if tier == domain.TierDestructive && strings.Contains(out, "; no snapshot: the statement cannot change the database") {
		// Only a statement SQLite calls read-only goes without a snapshot:
		// then it changed no table (query_log gains the call's own row).
		b, a := maps.Clone(before.Tables), maps.Clone(after.Tables)
		delete(b, "query_log")
		delete(a, "query_log")
		assert.Equal(t, b, a, "%s: a statement run without a snapshot changed the database", level)
		return
	}
	if tier == domain.TierDestructive {
		_, path, found := strings.Cut(out, "; snapshot: ")
		if assert.True(t, found, "destructive_query names its snapshot: %q", out) {
			path, _, _ = strings.Cut(path, "\n")
			_, err := os.Stat(path)
			assert.NoError(t, err, "destructive_query's snapshot exists")
		}
		return
	}
	// write_query: additive DDL only, so every schema entry stays as it was.
	gone := removed(before.Tables["sqlite_schema"], after.Tables["sqlite_schema"])
	assert.Empty(t, gone, "write_query dropped or altered schema entries")
	// INSERT, UPDATE, upsert and REPLACE: existing rows may change or be
	// overwritten, in all no more than the UPDATE guard allows; DELETE is
	// refused.
	changed := map[string]int{}
	for name, rows := range before.Tables {
		if domain.IsInternalName(name) || w.shadow[name] {
			continue // the schema, sqlite_sequence and stat tables; module-owned
		}
		if n := len(removed(rows, after.Tables[name])); n > 0 {
			changed[name] = n
		}
		assert.Contains(t, after.Tables, name, "write_query dropped table %s", name)
	}
	for name, rows := range w.vtables {
		if n := len(removed(rows, w.virtualRows(t, name))); n > 0 {
			changed[name] = n
		}
	}
	total := 0
	for _, n := range changed {
		total += n
	}
	assert.LessOrEqual(t, total, w.limits.MaxUpdateRows, "write_query changed more existing rows than the UPDATE guard allows: %v", changed)
}

// removed returns the rows of before that after lacks, duplicates counted.
func removed(before, after []string) []string {
	left := map[string]int{}
	for _, r := range after {
		left[r]++
	}
	var out []string
	for _, r := range before {
		if left[r] > 0 {
			left[r]--
			continue
		}
		out = append(out, r)
	}
	return out
}

// withoutSchemaVersion drops schema_version from a dumped header.
func withoutSchemaVersion(h []string) []string {
	return slices.DeleteFunc(slices.Clone(h), func(f string) bool { return strings.HasPrefix(f, "schema_version=") })
}

// serverSchema returns the dumped sqlite_schema rows of the server's
// objects: its tables, their indexes and triggers, and its views. No tier
// may add, change or drop one.
func serverSchema(s snapshot) []string {
	var out []string
	for _, r := range s.Tables["sqlite_schema"] {
		// rowid|type|name|tbl_name|..., each value as typeN:bytes.
		f := dumpValues(r, 4)
		if len(f) == 4 && (domain.IsServerObject(f[2]) || domain.IsServerObject(f[3])) {
			out = append(out, r)
		}
	}
	return out
}

// dumpValues splits the first n values off one row of the inspector's
// dump: the rowid, then values spelled typeN:bytes, N the byte count, so a
// '|' inside a name cannot shift the fields.
func dumpValues(row string, n int) []string {
	rowid, rest, _ := strings.Cut(row, "|")
	out := []string{rowid}
	for len(out) < n && rest != "" {
		head, tail, ok := strings.Cut(rest, ":")
		digits := strings.TrimLeft(head, "abcdefghijklmnopqrstuvwxyz")
		size, err := strconv.Atoi(cmp.Or(digits, "0")) // a NULL has no length
		if !ok || err != nil || size > len(tail) {
			break
		}
		out = append(out, tail[:size])
		rest = strings.TrimPrefix(tail[size:], "|")
	}
	return out
}

// fuzzSeeds are every SQL string of the tests' corpora, without duplicates.
func fuzzSeeds(f *testing.F) []string {
	var seeds []string
	for _, cat := range corpus() {
		for _, c := range cat.cases {
			seeds = append(seeds, c.sql)
		}
	}
	seeds = append(seeds, legitimateReads...)
	for _, c := range createViewCalls() {
		seeds = append(seeds, c.args["select_sql"].(string))
	}
	for _, c := range searchCalls() {
		if where, ok := c.args["where"].(string); ok {
			seeds = append(seeds, where, "SELECT * FROM notes WHERE ("+where+"\n)")
		}
	}
	for _, a := range auditedAttacks {
		seeds = append(seeds, a.sql)
	}
	seeds = append(seeds, readOnlyCorpus(f)...)
	seeds = append(seeds, extraSeeds...)
	slices.Sort(seeds)
	return slices.Compact(seeds)
}

// readOnlyCorpus is the SQL of the read-only mode's attack corpus
// (test/readonly); its {{dir}} placeholder is this corpus's too.
func readOnlyCorpus(f *testing.F) []string {
	b, err := os.ReadFile("../readonly/testdata/read_attacks.sql")
	require.NoError(f, err)
	var out []string
	for _, block := range strings.Split(string(b), "\n-- attack: ")[1:] {
		_, body, ok := strings.Cut(block, "\n")
		require.True(f, ok, "a read-only attack has no statement")
		out = append(out, strings.TrimSpace(body))
	}
	require.Greater(f, len(out), 90, "the whole read-only corpus was read")
	return out
}

// extraSeeds reach the edges of what write_query allows: overwriting
// through REPLACE, upsert, foreign keys and triggers, the FTS5 commands
// that are INSERTs, the tables SQLite writes itself, and empty input.
var extraSeeds = []string{
	"",
	";",
	"-- only a comment",
	"/*",
	"\x00",
	"SELECT 1",
	"REPLACE INTO notes (id, title) VALUES (2, 'x')",
	"INSERT INTO notes (id, title) VALUES (1, 'x') ON CONFLICT(id) DO UPDATE SET title = excluded.title",
	"REPLACE INTO tags (id, note_id, tag) SELECT id, note_id, 'x' FROM tags",
	"UPDATE notes SET id = id + 100",
	"UPDATE tags SET tag = 'x' WHERE id = 1 RETURNING *",
	"INSERT OR REPLACE INTO kv SELECT k, 0 FROM kv",
	"INSERT INTO docs (docs) VALUES ('optimize')",
	"INSERT INTO docs (docs) VALUES ('rebuild')",
	"INSERT INTO docs (docs) VALUES ('delete-all')",
	"INSERT INTO docs (docs) SELECT 'rebu' || 'ild'",
	"INSERT INTO docs (docs, rank) VALUES ('merge', 10)",
	"INSERT INTO docs (docs) VALUES ('integrity-check')",
	"INSERT INTO bigdocs (bigdocs) VALUES ('rebuild')",
	"INSERT INTO docs (docs, rank) VALUES ('rank', 'bm25(10.0, 5.0)')",
	"INSERT INTO docs (docs, rowid, title, body) VALUES ('delete', 1, 'alpha', 'a note about apples')",
	"INSERT OR REPLACE INTO docs (rowid, title, body) VALUES (1, 'x', 'y')",
	"UPDATE docs SET body = 'x'",
	"INSERT OR REPLACE INTO boxes VALUES (1, 5, 6, 5, 6)",
	"UPDATE sqlite_sequence SET seq = 0",
	"INSERT INTO sqlite_sequence VALUES ('notes', 99)",
	"ANALYZE",
	"ANALYZE notes",
	"REINDEX",
	"CREATE INDEX notes_title ON notes(title)",
	"CREATE TABLE copy AS SELECT * FROM notes",
	"CREATE VIRTUAL TABLE ext USING fts5(title, content='notes', content_rowid='id')",
	"ALTER TABLE notes RENAME TO n2",
	"ALTER TABLE notes ADD COLUMN extra TEXT",
	"ALTER TABLE tags DROP COLUMN tag",
	"DROP TABLE notes",
	"DROP VIEW v_notes",
	"DELETE FROM seq",
	"INSERT INTO seq (v) VALUES ('three')",
	"BEGIN; DELETE FROM notes; COMMIT",
	"SAVEPOINT a",
	"RELEASE a",
	"ROLLBACK",
	// Single-step bombs (docs/decisions.md#bounded-built-ins): one call of each costs minutes on
	// SQLite's own code; the bounded replacements stop at the deadline.
	// A mutation that shortens or reshapes the arguments still reaches
	// the ported code paths.
	"SELECT instr(printf('%.*c', 600000, 'a'), printf('%.*c', 200000, 'a') || 'b')",
	"SELECT replace(printf('%.*c', 600000, 'a'), printf('%.*c', 200000, 'a') || 'b', 'c')",
	"SELECT trim(printf('%.*c', 400000, 'a'), printf('%.*c', 400000, 'b') || 'a')",
	"SELECT printf('%.*c', 800000, 'a') LIKE '%' || printf('%.*c', 40000, 'a') || 'b' ESCAPE '!'",
	"SELECT printf('%.*c', 800000, 'a') GLOB '*[a]' || printf('%.*c', 10000, '?') || 'b'",
	"SELECT unhex(printf('%.*c', 400000, 'x'), printf('%.*c', 400000, 'y') || 'x')",
	"SELECT json_extract('{' || replace(printf('%.*c', 100000, 'x'), 'x', '\"k\":1,') || '\"z\":0}', '$.a', '$.b', '$.c', '$.d')",
	"SELECT json_patch('{\"a\":1,\"b\":{\"c\":2}}', '{\"b\":{\"c\":null},\"d\":[1]}')",
	"CREATE TABLE gen (x TEXT, y TEXT, z AS (instr(x, y)) STORED)",
	"CREATE TRIGGER bomb BEFORE INSERT ON notes BEGIN SELECT ltrim(printf('%.*c', 400000, 'a'), printf('%.*c', 400000, 'b') || 'a'); END",
}

// text is a tool call's answer as the agent reads it.
func text(r ports.Result, err error) (string, error) { return r.Text, err }
