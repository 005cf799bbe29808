package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

func TestWriteQuery(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		query     string
		result    domain.WriteResult
		returning bool
		writeErr  error
		wantKind  error
		wantSays  []string
		wantOut   []string
		wantRows  int64
	}{
		{name: "an insert", query: "INSERT INTO notes VALUES (1)", result: domain.WriteResult{RowsAffected: 1, LastInsertRowID: 1},
			wantOut: []string{"ok: 1 row"}, wantRows: 1},
		{name: "RETURNING rows follow the summary as CSV", query: "INSERT INTO notes VALUES (1) RETURNING id", returning: true,
			result: domain.WriteResult{RowsAffected: 1}, wantOut: []string{"\nid\n7\n# 1 rows"}, wantRows: 1},
		{name: "the UPDATE guard's refusal", query: "UPDATE notes SET title = ''", result: domain.WriteResult{RowsAffected: 501},
			wantKind: domain.ErrGuard, wantSays: []string{"500", "WHERE"}},
		{name: "blank", query: "  ", wantKind: domain.ErrInvalidArgument, wantSays: []string{"query must not be empty"}},
		{name: "a constraint", query: "INSERT INTO notes VALUES (1)", writeErr: domain.Errorf(domain.ErrSQLite, "UNIQUE constraint failed: notes.id"),
			wantKind: domain.ErrSQLite, wantSays: []string{"UNIQUE"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.db.Statements.Result, w.db.Statements.WriteErr = tc.result, tc.writeErr
			if tc.returning {
				w.db.Statements.WriteColumns, w.db.Statements.WriteRows = []string{"id"}, [][]any{{int64(7)}}
			}
			out, err := text(w.svc.WriteQuery(context.Background(), domain.WriteQueryRequest{Query: tc.query}))
			e := w.onlyEntry(t)
			assert.Equal(t, "write_query", e.Tool)
			if tc.wantKind != nil {
				wantKind(t, err, tc.wantKind, tc.wantSays...)
				assert.False(t, e.OK, "a failed write leaves its failure row")
				assert.Equal(t, err.Error(), e.Error)
				return
			}
			require.NoError(t, err)
			for _, s := range tc.wantOut {
				assert.Contains(t, out, s)
			}
			calls := w.db.Calls()
			require.Len(t, calls, 1)
			assert.Equal(t, domain.TierWrite, calls[0].Tier)
			assert.Equal(t, 500, calls[0].Request.MaxUpdateRows, "write_query runs under --max-update-rows")
			assert.NotNil(t, calls[0].Request.Audit, "the store is the audit sink: the row is sealed into the write")
			assert.True(t, e.OK)
			require.NotNil(t, e.Rows)
			assert.Equal(t, tc.wantRows, *e.Rows)
		})
	}
}

// With an audit sink that is not the database (read-only mode's
// --audit-db, JSON lines), a write's row is recorded after its commit.
func TestWriteWithASeparateSinkIsRecordedAfterTheCommit(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sink := &fake.AuditLog{}
	d := w.deps()
	d.Audit = sink
	w.rebuild(d)
	w.db.Statements.Result = domain.WriteResult{RowsAffected: 2}
	_, err := w.svc.WriteQuery(context.Background(), domain.WriteQueryRequest{Query: "UPDATE notes SET title = 'x'"})
	require.NoError(t, err)
	assert.Nil(t, w.db.Calls()[0].Request.Audit, "nothing is sealed into a database that is not the sink")
	assert.Empty(t, w.db.Entries())
	require.Len(t, sink.Entries(), 1)
	assert.Equal(t, int64(2), *sink.Entries()[0].Rows)
}

func TestDestructiveQuery(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		query      string
		reason     string
		compileErr error
		snapPath   string
		snapErr    error
		noSnaps    bool // read-only wiring: no snapshotter at all
		wantKind   error
		wantSays   []string
		wantCalls  []string
		wantOut    string
		wantSnap   bool
	}{
		{name: "compiled, snapshotted, run", query: "DELETE FROM notes", reason: "clean up", snapPath: "/snaps/a.db",
			wantCalls: []string{"Compile", "Write"}, wantOut: "; snapshot: /snaps/a.db", wantSnap: true},
		{name: "snapshots switched off", query: "DELETE FROM notes", reason: "clean up", snapPath: "",
			wantCalls: []string{"Compile", "Write"}, wantOut: "; snapshots are disabled", wantSnap: true},
		{name: "no snapshotter", query: "DELETE FROM notes", reason: "clean up", noSnaps: true,
			wantCalls: []string{"Compile", "Write"}, wantOut: "; snapshots are disabled"},
		{name: "a blank reason", query: "DELETE FROM notes", reason: " \t", wantKind: domain.ErrInvalidArgument, wantSays: []string{"reason is required"}},
		{name: "a blank query", query: "", reason: "x", wantKind: domain.ErrInvalidArgument, wantSays: []string{"query must not be empty"}},
		{name: "a statement that does not compile costs no snapshot", query: "DELET FROM notes", reason: "x",
			compileErr: domain.Errorf(domain.ErrSQLite, `near "DELET": syntax error`), wantKind: domain.ErrSQLite, wantCalls: []string{"Compile"}},
		{name: "no snapshot, no statement", query: "DROP TABLE notes", reason: "x", snapErr: domain.Errorf(domain.ErrSnapshot, "disk full"),
			wantKind: domain.ErrSnapshot, wantSays: []string{"disk full", "the statement was not run", "--snapshot-dir", "--snapshots 0"},
			wantCalls: []string{"Compile"}, wantSnap: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.snaps.Path, w.snaps.Err = tc.snapPath, tc.snapErr
			w.db.Statements.CompileErr = tc.compileErr
			w.db.Statements.Result = domain.WriteResult{RowsAffected: 4}
			if tc.noSnaps {
				d := w.deps()
				d.Snapshots = nil
				w.rebuild(d)
			}
			out, err := text(w.svc.DestructiveQuery(context.Background(), domain.DestructiveQueryRequest{Query: tc.query, Reason: tc.reason}))
			assert.Equal(t, tc.wantCalls, w.methods())
			if tc.wantSnap {
				assert.Equal(t, []string{"destructive_query: " + domain.StripSpace(tc.reason)}, w.snaps.Reasons())
			} else {
				assert.Empty(t, w.snaps.Reasons())
			}
			e := w.onlyEntry(t)
			assert.Equal(t, "destructive_query", e.Tool)
			if tc.wantKind != nil {
				wantKind(t, err, tc.wantKind, tc.wantSays...)
				assert.False(t, e.OK)
				return
			}
			require.NoError(t, err)
			assert.Contains(t, out, tc.wantOut)
			calls := w.db.Calls()
			assert.Equal(t, domain.TierDestructive, calls[0].Tier, "compiled under the destructive tier")
			assert.Equal(t, domain.TierDestructive, calls[1].Tier)
			assert.Zero(t, calls[1].Request.MaxUpdateRows, "no row cap on destructive_query")
			assert.True(t, e.OK)
			assert.Contains(t, e.Detail, `"reason": "clean up"`)
		})
	}
}

// The snapshot is the server's work: it is not cut short by the call's
// deadline, and the statement after it gets a full deadline of its own.
func TestDestructiveQueryDeadlineStartsAfterTheSnapshot(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(l *domain.Limits) { l.QueryTimeout = 200 * time.Millisecond })
	var snapHadDeadline bool
	var snapDone time.Time
	w.snaps.SnapshotFn = func(ctx context.Context, _ string) (string, error) {
		_, snapHadDeadline = ctx.Deadline()
		// The snapshot ends a clock tick later than it began, so a deadline
		// armed before it lies before snapDone plus the timeout.
		for began := time.Now(); !time.Now().After(began); {
		}
		snapDone = time.Now()
		return "/snaps/slow.db", nil
	}
	_, err := w.svc.DestructiveQuery(context.Background(), domain.DestructiveQueryRequest{Query: "DELETE FROM notes", Reason: "slow disk"})
	require.NoError(t, err)
	assert.False(t, snapHadDeadline, "the snapshot has no query deadline")
	calls := w.db.Calls()
	require.NotEmpty(t, calls)
	run := calls[len(calls)-1]
	assert.False(t, run.Deadline.Before(snapDone.Add(200*time.Millisecond)), "the statement's deadline starts after the snapshot: %v, snapshot done %v", run.Deadline, snapDone)
}

func TestSnapshot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path string
		err        error
		want       string
	}{
		{"written", "/snaps/b.db", nil, "ok: snapshot written: /snaps/b.db"},
		{"switched off", "", nil, "snapshots are disabled: the server runs with --snapshots 0"},
		{"failed", "", domain.Errorf(domain.ErrSnapshot, "the snapshot folder is a file"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.snaps.Path, w.snaps.Err = tc.path, tc.err
			out, err := text(w.svc.Snapshot(context.Background(), domain.SnapshotRequest{Reason: "before the migration"}))
			assert.Equal(t, []string{"before the migration"}, w.snaps.Reasons())
			e := w.onlyEntry(t)
			assert.Equal(t, "snapshot", e.Tool)
			if tc.err != nil {
				wantKind(t, err, domain.ErrSnapshot, "folder is a file")
				assert.False(t, e.OK)
				return
			}
			require.NoError(t, err)
			assert.Contains(t, out, tc.want)
			assert.True(t, e.OK)
		})
	}
}

func TestCreateView(t *testing.T) {
	t.Parallel()
	selects := domain.Compiled{Actions: []domain.Action{domain.ActionSelect}, Columns: 1}
	cases := []struct {
		name     string
		req      domain.CreateViewRequest
		existing *domain.SchemaObject
		compiled domain.Compiled
		viewErr  error
		wantKind error
		wantSays []string
		wantOut  string
		wantView *domain.View // what the store was asked to keep
	}{
		{name: "a new view", req: domain.CreateViewRequest{Name: " recent ", SelectSQL: " SELECT 1 ;; ", Description: "newest first"}, compiled: selects,
			wantOut: "ok: view recent created", wantView: &domain.View{Name: "recent", Description: "newest first", Body: "SELECT 1"}},
		{name: "replaced", req: domain.CreateViewRequest{Name: "recent", SelectSQL: "SELECT 2", Replace: true}, compiled: selects,
			existing: &domain.SchemaObject{Type: "view", Name: "recent", SQL: "SELECT 1"},
			wantOut:  "ok: view recent replaced; the previous definition is kept in query_log", wantView: &domain.View{Name: "recent", Body: "SELECT 2"}},
		{name: "an existing view without replace", req: domain.CreateViewRequest{Name: "recent", SelectSQL: "SELECT 2"}, compiled: selects,
			existing: &domain.SchemaObject{Type: "view", Name: "recent", SQL: "SELECT 1"}, wantKind: domain.ErrConflict, wantSays: []string{"replace=true"}},
		{name: "a table of that name", req: domain.CreateViewRequest{Name: "Notes", SelectSQL: "SELECT 2", Replace: true}, compiled: selects,
			existing: &domain.SchemaObject{Type: "table", Name: "notes"}, wantKind: domain.ErrConflict, wantSays: []string{"a table named", "pick another name"}},
		{name: "a malformed name", req: domain.CreateViewRequest{Name: "my view", SelectSQL: "SELECT 1"}, wantKind: domain.ErrInvalidArgument},
		{name: "a server object's name", req: domain.CreateViewRequest{Name: "QUERY_ERRORS", SelectSQL: "SELECT 1"}, wantKind: domain.ErrConflict},
		{name: "not a SELECT", req: domain.CreateViewRequest{Name: "v", SelectSQL: "VALUES (1)"}, compiled: domain.Compiled{Columns: 1},
			wantKind: domain.ErrInvalidArgument, wantSays: []string{"one SELECT"}},
		{name: "nothing but comments", req: domain.CreateViewRequest{Name: "v", SelectSQL: "-- hi"}, compiled: domain.Compiled{Empty: true},
			wantKind: domain.ErrInvalidArgument},
		{name: "the store refuses", req: domain.CreateViewRequest{Name: "v", SelectSQL: "SELECT 1"}, compiled: selects,
			viewErr: domain.Errorf(domain.ErrConflict, "view v has triggers"), wantKind: domain.ErrConflict, wantSays: []string{"triggers"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.db.Statements.Compiled = tc.compiled
			w.db.Schema.ViewErr = tc.viewErr
			if tc.existing != nil {
				w.db.Schema.ObjectList = append(w.db.Schema.ObjectList, *tc.existing)
			}
			out, err := text(w.svc.CreateView(context.Background(), tc.req))
			e := w.onlyEntry(t)
			assert.Equal(t, "create_view", e.Tool)
			if tc.wantKind != nil {
				wantKind(t, err, tc.wantKind, tc.wantSays...)
				assert.False(t, e.OK)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantOut, out)
			calls := w.db.Calls()
			require.Len(t, calls, 1)
			assert.Equal(t, "Compile", calls[0].Method)
			assert.Equal(t, domain.TierRead, calls[0].Tier, "the view's SELECT is checked under the read tier")
			assert.Equal(t, []domain.View{*tc.wantView}, w.db.Schema.Asked, "name stripped, body normalised, description passed on")
			assert.True(t, e.OK)
			if tc.existing != nil {
				assert.Contains(t, e.Detail, `"previous_sql": "SELECT 1"`, "the row keeps the replaced definition")
			}
		})
	}
}
