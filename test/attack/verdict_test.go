package attack_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// verdict is what one tier must answer to one statement.
type verdict struct {
	// kind is the domain error kind of the refusal; nil means allowed.
	kind error
	// hint is text the refusal must contain: the tool to use next, where the
	// reference names one.
	hint string
	// either accepts the statement being allowed too: the spec leaves the
	// choice open (a trigger body may be refused when created or when fired).
	either bool
}

func (v verdict) String() string {
	s := kindName(v.kind)
	if v.hint != "" {
		s += " naming " + v.hint
	}
	if v.either {
		s = "allowed or " + s
	}
	return s
}

var (
	allowed = verdict{}
	// policy is a refusal by the statement policy that names no tool.
	policy = verdict{kind: domain.ErrPolicy}
	// invalid is a malformed call: several statements, bound parameters.
	invalid = verdict{kind: domain.ErrInvalidArgument}
	// engine is SQLite's own refusal (defensive mode, reserved names,
	// syntax), shown as "SQLite error: ...".
	engine = verdict{kind: domain.ErrSQLite}
	// timeout is the per-call deadline cancelling the statement.
	timeout = verdict{kind: domain.ErrTimeout}
	// guarded is the UPDATE guard rolling the statement back.
	guarded = verdict{kind: domain.ErrGuard, hint: "destructive_query"}
	// laterPolicy is a statement that may be created but must be refused
	// whenever what it hides runs.
	laterPolicy = verdict{kind: domain.ErrPolicy, either: true}
)

// use is a policy refusal that names the tool to use instead.
func use(tool string) verdict { return verdict{kind: domain.ErrPolicy, hint: tool} }

// expect holds the verdicts of read_query, write_query and destructive_query.
type expect [3]verdict

func all(v verdict) expect         { return expect{v, v, v} }
func tiers(r, w, d verdict) expect { return expect{r, w, d} }

var (
	// writeTier is DML and additive DDL: write_query and up.
	writeTier = expect{use("write_query"), allowed, allowed}
	// destroyTier is DELETE and destructive DDL: destructive_query only.
	destroyTier = expect{use("destructive_query"), use("destructive_query"), allowed}
	// viewTool is CREATE VIEW, which only the create_view tool may run.
	viewTool = all(use("create_view"))
)

var allTiers = [3]domain.Tier{domain.TierRead, domain.TierWrite, domain.TierDestructive}

// attack is one statement of the corpus. {{dir}} and {{out}} in sql are
// replaced by the database's folder and a folder outside it.
type attack struct {
	sql  string
	want expect
}

// category groups attacks of one kind.
type category struct {
	name  string
	cases []attack
}

// corpus is every category, in report order.
func corpus() []category {
	return []category{
		{"comments_and_casing", commentsAndCasing},
		{"cte_wrapping", cteWrapping},
		{"explain_wrapping", explainWrapping},
		{"multi_statement", multiStatement},
		{"parameters", parameters},
		{"attach_and_vacuum", attachAndVacuum},
		{"pragmas", pragmas},
		{"pragma_functions", pragmaFunctions},
		{"load_extension", loadExtension},
		{"temp_objects", tempObjects},
		{"transaction_control", transactionControl},
		{"triggers_and_views", triggersAndViews},
		{"schema_tables", schemaTables},
		{"server_tables", serverTableAttacks},
		{"virtual_tables", virtualTables},
		{"update_guard", updateGuard},
		{"runaway", runaway()},
	}
}

// caseName turns a statement into a readable subtest name.
func caseName(sql string) string {
	var b strings.Builder
	for _, r := range sql {
		switch {
		case r == 0:
			b.WriteString(`\0`)
		case r == '\n' || r == '\t' || r == '\r' || r == '\f':
			b.WriteByte(' ')
		case r == '/':
			b.WriteString("∕") // a slash would nest subtests
		case !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	s := []rune(b.String())
	if len(s) > 70 {
		s = append(s[:70], '…')
	}
	return string(s)
}

// attackRun runs one case in every tier, at the adapter and then through
// MCP. A refusal leaves the database as it was (that is checked), so the
// next call reuses it; after a statement that ran, the next call gets a
// fresh copy.
type attackRun struct {
	t      *testing.T
	env    *corpusEnv
	in     *inspector
	before snapshot
}

func (r *attackRun) reset() {
	r.env = fresh(r.t)
	r.in = inspect(r.t, r.env)
	r.before = r.in.snapshot(r.t)
}

func runAttack(t *testing.T, c attack) {
	r := &attackRun{t: t}
	r.reset()
	for i, tier := range allTiers {
		r.adapter(tier, c.sql, c.want[i])
		r.mcp(tier, c.sql, c.want[i])
	}
}

// adapter runs the statement on the store itself and checks the error kind.
func (r *attackRun) adapter(tier domain.Tier, raw string, want verdict) {
	t, level := r.t, tier.Tool()+" adapter"
	err := adapterCall(r.env, tier, r.env.expand(raw))
	if checkKind(t, level, want, err) {
		checkHint(t, level, want, err.Error(), r.env.Dir)
	}
	r.settle(level, err != nil, 0, false)
}

// mcp runs the statement through the MCP client and checks the tool error,
// its wording and the audit row it leaves.
func (r *attackRun) mcp(tier domain.Tier, raw string, want verdict) {
	t, level := r.t, tier.Tool()+" MCP"
	args := map[string]any{"query": r.env.expand(raw)}
	if tier == domain.TierDestructive {
		args["reason"] = "attack corpus"
	}
	audited := len(r.env.audit.all())
	text, isErr := r.env.Call(t, tier.Tool(), args)
	if !want.either && assert.Equal(t, want.kind != nil, isErr, "%s: want %v, got %q", level, want, text) && isErr {
		checkHint(t, level, want, text, r.env.Dir)
		checkWording(t, level, want, text)
	}
	if entries := r.env.audit.all()[audited:]; assert.Len(t, entries, 1, "%s: one audit entry per call", level) {
		e := entries[0]
		assert.Equal(t, tier.Tool(), e.Tool, "%s: the audit entry names the tool", level)
		assert.Equal(t, !isErr, e.OK, "%s: the audit entry records the outcome", level)
		if isErr {
			assert.Equal(t, text, e.Error, "%s: the audit entry records the message the agent saw", level)
		}
	}
	r.settle(level, isErr, 0, tier == domain.TierDestructive)
}

// settle checks the database and the pooled connections after a call, then
// prepares the next call's database. A refused adapter call shares its
// connection check with the MCP call after it, on the same connections.
func (r *attackRun) settle(level string, refused bool, auditRows int, snapshots bool) {
	after := r.in.snapshot(r.t)
	check(r.t, level, r.before, after, refused, auditRows, snapshots)
	if !refused || strings.HasSuffix(level, "MCP") {
		assert.Equal(r.t, baselineConnState(r.t), connState(r.t, r.env.Store), "%s: the pooled connections changed state", level)
	}
	if r.t.Failed() || !refused {
		r.reset()
		return
	}
	r.before = after
}

// adapterCall runs sql as the tier's tool does: read_query reads at most a
// page of rows, write_query has the UPDATE guard, destructive_query compiles
// first and then runs without a guard.
func adapterCall(env *corpusEnv, tier domain.Tier, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), corpusLimits().QueryTimeout)
	defer cancel()
	rows := 0
	page := func([]any) bool { rows++; return rows < 1000 }
	switch tier {
	case domain.TierRead:
		return env.Statements.Read(ctx, sql, func([]string) {}, page)
	case domain.TierWrite:
		_, err := env.Statements.Write(ctx, domain.WriteRequest{Tier: tier, SQL: sql, MaxUpdateRows: corpusLimits().MaxUpdateRows}, func([]string) {}, page)
		return err
	}
	if _, err := env.Statements.Compile(ctx, tier, sql); err != nil {
		return err
	}
	_, err := env.Statements.Write(ctx, domain.WriteRequest{Tier: tier, SQL: sql}, func([]string) {}, page)
	return err
}

// checkKind asserts the adapter's verdict and reports whether err is a
// refusal whose message is worth checking further.
func checkKind(t *testing.T, level string, want verdict, err error) bool {
	t.Helper()
	switch {
	case want.either && err == nil:
		return false
	case want.kind == nil:
		assert.NoError(t, err, "%s: want allowed", level)
		return false
	case err == nil:
		assert.Fail(t, level+": want "+want.String()+", got allowed")
		return false
	}
	return assert.ErrorIs(t, err, want.kind, "%s: want %v, got %s: %v", level, want, kindName(err), err)
}

// checkHint asserts a refusal names the tool to use and never leaks the
// database's absolute folder.
func checkHint(t *testing.T, level string, want verdict, msg, dir string) {
	t.Helper()
	if want.hint != "" {
		assert.Contains(t, msg, want.hint, "%s: the refusal must say what to use", level)
	}
	assert.NotContains(t, msg, dir, "%s: the refusal leaks the database's folder", level)
}

// checkWording asserts the part of an MCP error text that is contract
// (docs/decisions.md#errors): SQLite's refusals say so, the server's own do not.
func checkWording(t *testing.T, level string, want verdict, text string) {
	t.Helper()
	switch want.kind {
	case domain.ErrSQLite:
		assert.True(t, strings.HasPrefix(text, "SQLite error: "), "%s: SQLite's refusal is shown as SQLite error: %q", level, text)
	case domain.ErrPolicy:
		assert.False(t, strings.HasPrefix(text, "SQLite"), "%s: a policy refusal is the server's own sentence: %q", level, text)
	case domain.ErrTimeout:
		assert.Contains(t, text, "exceeded", "%s: a timeout says so", level)
	case domain.ErrGuard:
		assert.True(t, strings.HasPrefix(text, "UPDATE would change"), "%s: the guard explains itself: %q", level, text)
	}
}

// TestAttackCorpus runs every case in every tier.
func TestAttackCorpus(t *testing.T) {
	seededTemplate(t)
	for _, cat := range corpus() {
		t.Run(cat.name, func(t *testing.T) {
			for _, c := range cat.cases {
				t.Run(caseName(c.sql), func(t *testing.T) {
					t.Parallel()
					runAttack(t, c)
				})
			}
		})
	}
}

// TestCorpusSize keeps the corpus at its promised size and reports the count
// per category.
func TestCorpusSize(t *testing.T) {
	seen := map[string]bool{}
	for _, cat := range corpus() {
		assert.NotEmpty(t, cat.cases, cat.name)
		for _, c := range cat.cases {
			assert.False(t, seen[c.sql], "duplicate case %q", c.sql)
			seen[c.sql] = true
		}
		t.Logf("%-22s %3d cases", cat.name, len(cat.cases))
	}
	t.Logf("%-22s %3d cases", "total", len(seen))
	assert.GreaterOrEqual(t, len(seen), 150)
}
