package app_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// fiveRows are the rows the fake database reads for every statement.
func fiveRows(w *world) {
	w.db.Statements.Columns = []string{"id", "title"}
	for i := range 5 {
		w.db.Statements.Rows = append(w.db.Statements.Rows, []any{int64(i + 1), fmt.Sprintf("note %d", i+1)})
	}
}

func TestReadQuery(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		req     domain.ReadQueryRequest
		readErr error
		// Either the error's kind and text, or the output and audit row.
		wantKind    error
		wantSays    []string
		wantOut     []string
		wantNotOut  []string
		wantRows    int64
		wantDetail  string
		wantNoReads bool
	}{
		{name: "a page cut by the limit says where the next starts", req: domain.ReadQueryRequest{Query: "SELECT * FROM notes", Limit: 2},
			wantOut:    []string{"id,title\n1,note 1\n2,note 2\n", "# 2 rows, truncated by limit=2 (more rows exist; next page: offset=2; raise limit up to 1000"},
			wantNotOut: []string{"note 3"}, wantRows: 2, wantDetail: `{"limit": 2, "more_rows": true}`},
		{name: "an offset skips rows while stepping", req: domain.ReadQueryRequest{Query: "SELECT * FROM notes", Limit: 10, Offset: 3},
			wantOut: []string{"4,note 4\n5,note 5\n# 2 rows"}, wantNotOut: []string{"note 3", "truncated"}, wantRows: 2,
			wantDetail: `{"limit": 10, "more_rows": false, "offset": 3}`},
		{name: "every row fits", req: domain.ReadQueryRequest{Query: "SELECT * FROM notes", Limit: 5},
			wantOut: []string{"5,note 5\n# 5 rows"}, wantNotOut: []string{"truncated"}, wantRows: 5},
		{name: "limit 0", req: domain.ReadQueryRequest{Query: "SELECT 1", Limit: 0}, wantKind: domain.ErrInvalidArgument,
			wantSays: []string{"limit", "1000"}, wantNoReads: true},
		{name: "limit above max_rows", req: domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1001}, wantKind: domain.ErrInvalidArgument,
			wantSays: []string{"limit", "1000"}, wantNoReads: true},
		{name: "negative offset", req: domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1, Offset: -1}, wantKind: domain.ErrInvalidArgument,
			wantSays: []string{"offset must be between 0 and"}, wantNoReads: true},
		{name: "blank query", req: domain.ReadQueryRequest{Query: " \n\t", Limit: 1}, wantKind: domain.ErrInvalidArgument,
			wantSays: []string{"query must not be empty"}, wantNoReads: true},
		{name: "the runner's refusal keeps its kind and text", req: domain.ReadQueryRequest{Query: "DELETE FROM notes", Limit: 1},
			readErr: domain.Errorf(domain.ErrPolicy, "DELETE is not allowed in read_query; use destructive_query"), wantKind: domain.ErrPolicy,
			wantSays: []string{"use destructive_query"}},
		{name: "a timeout keeps its kind", req: domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1},
			readErr: domain.Errorf(domain.ErrTimeout, "query exceeded 10s"), wantKind: domain.ErrTimeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			fiveRows(w)
			w.db.Statements.ReadErr = tc.readErr
			out, err := text(w.svc.ReadQuery(context.Background(), tc.req))
			e := w.onlyEntry(t)
			assert.Equal(t, "read_query", e.Tool)
			require.NotNil(t, e.Query)
			assert.Equal(t, tc.req.Query, *e.Query, "the row keeps the query as the agent sent it")
			if tc.wantNoReads {
				assert.Empty(t, w.methods(), "a bad argument costs no statement")
			}
			if tc.wantKind != nil {
				wantKind(t, err, tc.wantKind, tc.wantSays...)
				assert.Empty(t, out)
				assert.False(t, e.OK)
				assert.Equal(t, err.Error(), e.Error, "the row holds the message the agent saw")
				return
			}
			require.NoError(t, err)
			for _, s := range tc.wantOut {
				assert.Contains(t, out, s)
			}
			for _, s := range tc.wantNotOut {
				assert.NotContains(t, out, s)
			}
			assert.True(t, e.OK)
			require.NotNil(t, e.Rows)
			assert.Equal(t, tc.wantRows, *e.Rows)
			assert.Contains(t, e.Detail, tc.wantDetail)
		})
	}
}

func TestReadQueryRunsUnderTheCallDeadline(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(l *domain.Limits) { l.QueryTimeout = 3 * time.Second })
	fiveRows(w)
	before := time.Now()
	_, err := w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1})
	after := time.Now()
	require.NoError(t, err)
	calls := w.db.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, domain.TierRead, calls[0].Tier)
	// By order alone, so a slow machine cannot fail it: the deadline is
	// 3 s from a moment inside the call.
	dl := calls[0].Deadline
	assert.False(t, dl.Before(before.Add(3*time.Second)) || dl.After(after.Add(3*time.Second)), "--query-timeout arms the read's deadline: %v not in [%v, %v]", dl, before.Add(3*time.Second), after.Add(3*time.Second))
}

func TestReadQueryByteCapEndsThePage(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(l *domain.Limits) { l.MaxResultBytes = 1024 })
	w.db.Statements.Columns = []string{"v"}
	for range 100 {
		w.db.Statements.Rows = append(w.db.Statements.Rows, []any{string(make([]byte, 100))})
	}
	out, err := text(w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT v FROM t", Limit: 100}))
	require.NoError(t, err)
	assert.Contains(t, out, "truncated at 1024 bytes (more rows exist; next page: offset=")
	assert.Contains(t, w.onlyEntry(t).Detail, `"more_rows": true`, "a row the byte cap refused counts as more")
}

func TestUnexpectedErrorsAreDomainErrors(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.db.Statements.ReadErr = errors.New("driver: bad connection")
	_, err := w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1})
	var de *domain.Error
	require.ErrorAs(t, err, &de, "an error no adapter translated still reaches the agent as a *domain.Error")
	assert.False(t, w.onlyEntry(t).OK)
}

func TestSchemaTools(t *testing.T) {
	t.Parallel()
	schema := func(w *world) {
		w.db.Schema.AddTable("notes", 5, [2]string{"id", "INTEGER"}, [2]string{"title", "TEXT"})
		w.db.Schema.AddTable("query_log", 9, [2]string{"id", "INTEGER"})
	}
	cases := []struct {
		name     string
		call     func(*world) (string, error)
		broken   bool // the schema reader fails
		tool     string
		wantKind error
		wantOut  []string
		notOut   []string
		wantRows int64
	}{
		{name: "list_tables with counts", tool: "list_tables", call: func(w *world) (string, error) {
			return text(w.svc.ListTables(context.Background(), domain.ListTablesRequest{IncludeRowCounts: true}))
		},
			wantOut: []string{"name,type,system,rows\nnotes,table,0,5\nquery_log,table,1,9\n# 2 rows"}, wantRows: 2},
		{name: "list_tables without counts leaves rows empty", tool: "list_tables", call: func(w *world) (string, error) {
			return text(w.svc.ListTables(context.Background(), domain.ListTablesRequest{}))
		},
			wantOut: []string{"notes,table,0,\n"}, wantRows: 2},
		{name: "list_tables when the schema cannot be read", tool: "list_tables", broken: true,
			call: func(w *world) (string, error) {
				return text(w.svc.ListTables(context.Background(), domain.ListTablesRequest{IncludeRowCounts: true}))
			}, wantKind: domain.ErrBusy},
		{name: "describe_table", tool: "describe_table", call: func(w *world) (string, error) {
			return text(w.svc.DescribeTable(context.Background(), domain.DescribeTableRequest{Table: "NOTES"}))
		},
			wantOut: []string{"title"}, wantRows: 2},
		{name: "describe_table of nothing", tool: "describe_table", call: func(w *world) (string, error) {
			return text(w.svc.DescribeTable(context.Background(), domain.DescribeTableRequest{Table: "  "}))
		},
			wantKind: domain.ErrInvalidArgument, wantOut: []string{"use list_tables"}},
		{name: "describe_table of a missing table", tool: "describe_table", call: func(w *world) (string, error) {
			return text(w.svc.DescribeTable(context.Background(), domain.DescribeTableRequest{Table: "gone"}))
		},
			wantKind: domain.ErrNotFound},
		{name: "get_schema hides server objects", tool: "get_schema", call: func(w *world) (string, error) {
			return text(w.svc.GetSchema(context.Background(), domain.GetSchemaRequest{}))
		},
			wantOut: []string{"CREATE TABLE notes", "1 server objects hidden"}, notOut: []string{"query_log"}, wantRows: 1},
		{name: "get_schema with include_system", tool: "get_schema", call: func(w *world) (string, error) {
			return text(w.svc.GetSchema(context.Background(), domain.GetSchemaRequest{IncludeSystem: true}))
		},
			wantOut: []string{"CREATE TABLE notes", "CREATE TABLE query_log"}, wantRows: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			schema(w)
			if tc.broken {
				w.db.Schema.Err = domain.Errorf(domain.ErrBusy, "another program holds the lock")
			}
			out, err := tc.call(w)
			e := w.onlyEntry(t)
			assert.Equal(t, tc.tool, e.Tool)
			assert.Empty(t, w.methods(), "the schema tools run no agent statement")
			if tc.wantKind != nil {
				wantKind(t, err, tc.wantKind, tc.wantOut...)
				assert.False(t, e.OK)
				return
			}
			require.NoError(t, err)
			for _, s := range tc.wantOut {
				assert.Contains(t, out, s)
			}
			for _, s := range tc.notOut {
				assert.NotContains(t, out, s)
			}
			require.NotNil(t, e.Rows)
			assert.Equal(t, tc.wantRows, *e.Rows)
		})
	}
}
