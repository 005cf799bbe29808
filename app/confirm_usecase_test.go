package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// deleteTwo is a dry run's impact: two rows of notes deleted.
var deleteTwo = domain.Impact{Tables: []domain.TableChange{{Table: "notes", Deleted: 2}}, RowsAffected: 2}

// confirmWorld is a world whose service measures with im and settles
// questions by c, with queue as the approval queue.
func confirmWorld(t *testing.T, c domain.ConfirmSettings, im *fake.Impact, queue ports.Confirmer) *world {
	t.Helper()
	w := newWorld(t)
	d := w.deps()
	d.Impact, d.Queue = im, queue
	w.svc = app.New(d, app.Options{Limits: w.limits, Session: "20261201T100000Z-test", Confirm: c, ConfirmDB: "notes.db"})
	return w
}

func destroy(w *world, ctx context.Context) (string, error) {
	return text(w.svc.DestructiveQuery(ctx, domain.DestructiveQueryRequest{Query: "DELETE FROM notes WHERE id < 3", Reason: "drop old notes"}))
}

func TestConfirmAsksTheClientFirstWithTheMeasuredImpact(t *testing.T) {
	t.Parallel()
	im := &fake.Impact{Impact: deleteTwo}
	queue := &fake.Confirmer{Decision: domain.Decision{Outcome: domain.OutcomeDeclined}}
	w := confirmWorld(t, domain.ConfirmSettings{Fallback: domain.FallbackQueue}, im, queue)
	w.db.Statements.Result = domain.WriteResult{RowsAffected: 2}
	client := &fake.Confirmer{Decision: domain.Decision{Outcome: domain.OutcomeApproved}}
	out, err := destroy(w, ports.WithConfirmer(context.Background(), client))
	require.NoError(t, err)
	assert.Contains(t, out, "ok: 2 rows affected; approved by the person (client elicitation); snapshot: /snaps/1.db")
	require.Len(t, client.Questions(), 1)
	assert.Empty(t, queue.Questions(), "the client asked; the queue is only the fallback")
	q := client.Questions()[0]
	assert.Equal(t, deleteTwo, q.Impact)
	assert.Equal(t, "drop old notes", q.Reason)
	assert.Contains(t, q.Text(), "- table 'notes': 2 rows deleted")
	assert.Contains(t, q.Text(), "mcp-sqlite-memory undo --db notes.db")
	assert.Len(t, w.snaps.Reasons(), 1)
	e := w.onlyEntry(t)
	assert.Contains(t, e.Detail, `"confirm": {"asked": true, "outcome": "approved", "by": "client elicitation"`)
}

func TestConfirmOutcomesThatRunNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		settings domain.ConfirmSettings
		client   *fake.Confirmer
		queue    *fake.Confirmer
		says     string
		by       string
	}{
		{"the person declines", domain.ConfirmSettings{}, &fake.Confirmer{Decision: domain.Decision{Outcome: domain.OutcomeDeclined}}, nil, "the person declined", domain.DecidedByClient},
		{"nobody answers in time", domain.ConfirmSettings{Wait: 20 * time.Millisecond}, &fake.Confirmer{Wait: true}, nil, "nobody answered the question in time", domain.DecidedByClient},
		{"refuse without elicitation", domain.ConfirmSettings{Fallback: domain.FallbackRefuse}, nil, nil, "needs a person's approval", domain.DecidedByFallback},
		{"the queue denies", domain.ConfirmSettings{Fallback: domain.FallbackQueue}, nil, &fake.Confirmer{Decision: domain.Decision{Outcome: domain.OutcomeDeclined, By: domain.DecidedByQueue}}, "the person declined", domain.DecidedByQueue},
		{"the queue expires", domain.ConfirmSettings{Fallback: domain.FallbackQueue, Wait: 20 * time.Millisecond}, nil, &fake.Confirmer{Wait: true}, "nobody answered", domain.DecidedByQueue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var queue ports.Confirmer
			if tc.queue != nil {
				queue = tc.queue
			}
			w := confirmWorld(t, tc.settings, &fake.Impact{Impact: deleteTwo}, queue)
			ctx := context.Background()
			if tc.client != nil {
				ctx = ports.WithConfirmer(ctx, tc.client)
			}
			_, err := destroy(w, ctx)
			wantKind(t, err, domain.ErrDeclined, tc.says, "nothing was run")
			assert.Empty(t, w.snaps.Reasons(), "no snapshot for a statement that does not run")
			for _, c := range w.db.Calls() {
				assert.NotEqual(t, "Write", c.Method)
			}
			e := w.onlyEntry(t)
			assert.False(t, e.OK)
			assert.Contains(t, e.Detail, `"by": "`+tc.by+`"`, "who decided is in the failure row too")
		})
	}
}

func TestConfirmNeedsNoQuestionWhenNothingChanges(t *testing.T) {
	t.Parallel()
	client := &fake.Confirmer{Decision: domain.Decision{Outcome: domain.OutcomeDeclined}}
	w := confirmWorld(t, domain.ConfirmSettings{}, &fake.Impact{Impact: domain.Impact{RowsAffected: 0}}, nil)
	_, err := destroy(w, ports.WithConfirmer(context.Background(), client))
	require.NoError(t, err)
	assert.Empty(t, client.Questions())
	assert.Len(t, w.snaps.Reasons(), 1, "the statement can still change something: snapshot as ever")
}

func TestConfirmReadOnlyStatementTakesNoSnapshotAndNoDryRun(t *testing.T) {
	t.Parallel()
	im := &fake.Impact{Impact: deleteTwo}
	w := confirmWorld(t, domain.ConfirmSettings{}, im, nil)
	w.db.Statements.Compiled = domain.Compiled{ReadOnly: true, Columns: 1}
	out, err := text(w.svc.DestructiveQuery(context.Background(), domain.DestructiveQueryRequest{Query: "SELECT 1", Reason: "look"}))
	require.NoError(t, err)
	assert.Contains(t, out, "no snapshot: the statement cannot change the database")
	assert.Empty(t, im.Calls())
	assert.Empty(t, w.snaps.Reasons())
}

func TestConfirmDryRunRefusalCostsNoSnapshot(t *testing.T) {
	t.Parallel()
	im := &fake.Impact{Err: domain.Errorf(domain.ErrPolicy, "PRAGMA database_list is not allowed")}
	w := confirmWorld(t, domain.ConfirmSettings{}, im, nil)
	_, err := destroy(w, context.Background())
	wantKind(t, err, domain.ErrPolicy, "database_list")
	assert.Empty(t, w.snaps.Reasons())
}

// A call waiting for a person gives its slot back: with one slot, another
// call runs meanwhile.
func TestConfirmWaitHoldsNoCallSlot(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(l *domain.Limits) { l.MaxConcurrentCalls = 1 })
	d := w.deps()
	d.Impact = &fake.Impact{Impact: deleteTwo}
	w.svc = app.New(d, app.Options{Limits: w.limits, Session: "s", Confirm: domain.ConfirmSettings{}})
	asked, release := make(chan struct{}), make(chan struct{})
	client := &fake.Confirmer{ConfirmFn: func(ctx context.Context, _ domain.Question) domain.Decision {
		close(asked)
		<-release
		return domain.Decision{Outcome: domain.OutcomeApproved}
	}}
	done := make(chan error, 1)
	go func() {
		_, err := destroy(w, ports.WithConfirmer(context.Background(), client))
		done <- err
	}()
	<-asked
	_, err := w.svc.ReadQuery(context.Background(), domain.ReadQueryRequest{Query: "SELECT 1", Limit: 1})
	assert.NoError(t, err, "the other call got the slot while the first waited")
	close(release)
	assert.NoError(t, <-done)
}
