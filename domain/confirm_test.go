package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestNeedsConfirmation(t *testing.T) {
	deletes := domain.Impact{Tables: []domain.TableChange{{Table: "t", Deleted: 1}}}
	updates := domain.Impact{Tables: []domain.TableChange{{Table: "t", Updated: 1}}}
	inserts := domain.Impact{Tables: []domain.TableChange{{Table: "t", Inserted: 5}}}
	creates := domain.Impact{Objects: []domain.ObjectChange{{Change: "created", Type: "table", Name: "x", Rows: -1}}}
	unfinished := domain.Impact{Partial: "the deadline"}
	nothing := domain.Impact{}
	for _, tc := range []struct {
		mode domain.ConfirmMode
		tool string
		im   domain.Impact
		want bool
	}{
		{domain.ConfirmDestructive, domain.ToolDestructiveQuery, deletes, true},
		{domain.ConfirmDestructive, domain.ToolDestructiveQuery, inserts, true},
		{domain.ConfirmDestructive, domain.ToolDestructiveQuery, unfinished, true},
		{domain.ConfirmDestructive, domain.ToolDestructiveQuery, nothing, false},
		{domain.ConfirmDestructive, domain.ToolWriteQuery, updates, false},
		{domain.ConfirmWrites, domain.ToolWriteQuery, updates, true},
		{domain.ConfirmWrites, domain.ToolWriteQuery, inserts, false},
		{domain.ConfirmWrites, domain.ToolWriteQuery, creates, false},
		{domain.ConfirmWrites, domain.ToolWriteQuery, unfinished, true},
		{domain.ConfirmWrites, domain.ToolCreateView, domain.Impact{Objects: []domain.ObjectChange{{Change: "altered", Type: "view", Name: "v"}}}, true},
		{domain.ConfirmOff, domain.ToolDestructiveQuery, deletes, false},
		{domain.ConfirmWrites, domain.ToolReadQuery, deletes, false},
	} {
		assert.Equal(t, tc.want, tc.mode.NeedsConfirmation(tc.tool, tc.im), "%s %s %+v", tc.mode, tc.tool, tc.im)
	}
}

func TestParseConfirmSettings(t *testing.T) {
	for s, want := range map[string]domain.ConfirmMode{"": domain.ConfirmDestructive, "Destructive": domain.ConfirmDestructive, " writes ": domain.ConfirmWrites, "off": domain.ConfirmOff} {
		got, err := domain.ParseConfirmMode(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
		assert.Equal(t, got, must(domain.ParseConfirmMode(got.String())))
	}
	for s, want := range map[string]domain.ConfirmFallback{"": domain.FallbackSnapshot, "queue": domain.FallbackQueue, "REFUSE": domain.FallbackRefuse} {
		got, err := domain.ParseConfirmFallback(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	_, err := domain.ParseConfirmMode("always")
	assert.ErrorContains(t, err, "use destructive, writes or off")
	_, err = domain.ParseConfirmFallback("allow")
	assert.ErrorContains(t, err, "use snapshot, queue, refuse")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestQuestionText(t *testing.T) {
	im := domain.Impact{
		Objects:  []domain.ObjectChange{{Change: "dropped", Type: "table", Name: "orders", Rows: 12}, {Change: "renamed", Type: "table", Name: "a", NewName: "b", Rows: -1}},
		Tables:   []domain.TableChange{{Table: "items", Deleted: 1}, {Table: "log", Inserted: 2, Updated: 3}, {Table: "docs", Virtual: true, Uncounted: true}},
		Triggers: []string{"orders_gone"},
		Partial:  "the trial run stopped at the deadline",
	}
	q := domain.Question{Tool: "destructive_query", SQL: "DROP TABLE orders" + strings.Repeat(" ", 3000) + "-- tail", Reason: "it said \"safe\"", Impact: im,
		Snapshot: "A snapshot first.", Undo: "Undo with X."}
	text := q.Text()
	for _, want := range []string{
		"- table 'orders' is dropped (it holds 12 rows)",
		"- table 'a' is renamed to 'b'",
		"- table 'items': at least 1 row deleted",
		"- table 'log': at least 3 rows changed, at least 2 rows added",
		"- virtual table 'docs': rows written by a trigger",
		"- triggers that run with it: 'orders_gone'",
		"the counts are lower bounds",
		`The agent's own reason (its words, not checked): "it said \"safe\""`,
		"A snapshot first.\nUndo with X.",
		" [...]",
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "-- tail", "a long statement is cut")
	assert.Equal(t, []string{"- nothing would change"}, domain.Impact{}.Lines())
}

func TestDecisionRefusalSaysWhatToDoNext(t *testing.T) {
	for _, o := range []domain.Outcome{domain.OutcomeDeclined, domain.OutcomeCancelled, domain.OutcomeTimedOut, domain.OutcomeInvalid, domain.OutcomeGone, domain.OutcomeRefused} {
		err := domain.Decision{Outcome: o, Note: "n"}.Refusal("destructive_query")
		assert.ErrorIs(t, err, domain.ErrDeclined)
		assert.True(t, strings.HasPrefix(err.Error(), "destructive_query: "), err.Error())
		assert.Contains(t, err.Error(), "nothing was run and nothing changed", o)
		assert.False(t, o.Runs())
	}
	assert.True(t, domain.OutcomeApproved.Runs())
	assert.True(t, domain.OutcomeUnasked.Runs())
}

func TestQuestionTextShowsControlCharacters(t *testing.T) {
	q := domain.Question{Tool: "destructive_query", SQL: "DELETE FROM t -- \x1b[2K\r\u202eevil", Reason: "ok",
		Impact: domain.Impact{Tables: []domain.TableChange{{Table: "t\u202e", Deleted: 1}}}}
	text := q.Text()
	assert.NotContains(t, text, "\x1b")
	assert.NotContains(t, text, "\r")
	assert.NotContains(t, text, "\u202e")
	assert.Contains(t, text, `\u001b[2K\u000d\u202eevil`)
	assert.Equal(t, "plain\ttext\n", domain.Visible("plain\ttext\n"))
}
