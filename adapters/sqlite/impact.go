package sqlite

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// ImpactMeter measures what a statement would do by running it for real
// inside BEGIN IMMEDIATE and rolling it back (a dry run), on an agent
// connection under the tier's policy, so every check that applies to the
// real run applies to it: a refusal that only comes while the statement
// runs (a table-valued pragma, a trigger's body) is found here, before
// anything is snapshotted or asked.
//
// What it counts, all of it SQLite's own account:
//   - rows: the pre-update hook reports every row deleted, updated or
//     inserted in every real table, at any trigger depth, foreign-key
//     cascades included; a virtual table written by the statement itself
//     is counted with sqlite3_changes64, one written by a trigger is named
//     as uncounted (guard.go explains why);
//   - objects: sqlite_schema is read before and after the statement, in
//     the same transaction, so every drop, create, rename (same root
//     page, new name) and change of definition shows; a dropped or
//     altered table's rows are counted before it runs.
//
// The write lock is released when Measure returns: the caller asks a
// person afterwards, never while holding it.
type ImpactMeter struct {
	db *Store
}

var _ ports.ImpactMeter = (*ImpactMeter)(nil)

// NewImpactMeter returns the impact meter of db.
func NewImpactMeter(db *Store) *ImpactMeter { return &ImpactMeter{db: db} }

// measure is what a dry run collects while the statement compiles and
// steps (agent.go calls note and row).
type measure struct {
	impact   domain.Impact
	counted  []string // tables whose rows are counted before the run
	triggers map[string]bool
	virtual  map[string]domain.Action // virtual tables the statement itself writes
	vtrigger map[string]bool          // virtual tables a trigger writes
	stepping bool
}

// note records one authorizer action seen while the statement compiles.
func (m *measure) note(c *call, act domain.Action, arg1, arg2, trigger string) {
	if trigger != "" && !m.triggers[trigger] {
		m.triggers[trigger] = true
		m.impact.Triggers = append(m.impact.Triggers, trigger)
	}
	switch act {
	case domain.ActionDropTable, domain.ActionDropVTable:
		m.counted = appendFold(m.counted, arg1)
	case domain.ActionAlterTable:
		m.counted = appendFold(m.counted, arg2)
	case domain.ActionInsert, domain.ActionUpdate, domain.ActionDelete:
		if c.virtual[strings.ToLower(arg1)] {
			if trigger == "" {
				m.virtual[arg1] = act
			} else {
				m.vtrigger[arg1] = true
			}
		}
	}
}

// row records one row the pre-update hook saw change.
func (m *measure) row(c *call, table string, op domain.Action) {
	if domain.IsInternalName(table) || c.shadow[strings.ToLower(table)] || domain.IsServerObject(table) {
		return
	}
	m.impact.Add(table, op)
}

func appendFold(list []string, s string) []string {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return list
		}
	}
	return append(list, s)
}

// Measure runs sql under tier and rolls it back, reporting its impact.
func (m *ImpactMeter) Measure(ctx context.Context, tier domain.Tier, sql string) (domain.Impact, error) {
	db := m.db
	ms := &measure{triggers: map[string]bool{}, virtual: map[string]domain.Action{}, vtrigger: map[string]bool{}}
	ms.impact.RowsAffected = -1
	budget := time.Now().Add(busyTimeout)
	release, err := db.lockWrites(ctx)
	if err != nil {
		return domain.Impact{}, err
	}
	defer release()
	err = db.withAgent(ctx, tier, func(c *call) error {
		c.suspended = true
		c.h.SetBusyTimeout(foreignWait(ctx, budget))
		err := c.h.Exec("BEGIN IMMEDIATE")
		c.h.SetBusyTimeout(busyTimeout)
		if err != nil {
			return db.lockError(ctx, err)
		}
		c.suspended = false
		c.measure = ms
		defer func() { c.measure = nil }()
		st, err := c.compileOne(db.ro.TruthfulSQL(sql))
		if err != nil {
			return err
		}
		defer st.Finalize()
		before, err := c.schema()
		if err != nil {
			return err
		}
		rows := map[string]int64{}
		for _, t := range ms.counted {
			n, err := c.countRows([]string{t})
			if err != nil {
				return err
			}
			rows[strings.ToLower(t)] = n
		}
		ms.stepping = true
		if !st.Empty() {
			if err := stream(st, func([]any) bool { return false }); err != nil {
				return err
			}
		}
		if c.wiped != "" {
			return c.wipeError()
		}
		res := c.result(domain.WriteResult{})
		ms.impact.RowsAffected = res.RowsAffected
		for t, act := range ms.virtual {
			ms.impact.AddRows(t, act, c.h.Changes())
			ms.markVirtual(t, false)
		}
		for t := range ms.vtrigger {
			ms.impact.AddRows(t, 0, 0)
			ms.markVirtual(t, true)
		}
		st.Finalize()
		after, err := c.schema()
		if err != nil {
			return err
		}
		ms.impact.Objects = diffSchema(before, after, rows, c.shadow)
		c.suspended = true
		return c.h.Exec("ROLLBACK")
	})
	if err != nil && ms.stepping && errors.Is(err, domain.ErrTimeout) && ctx.Err() != nil {
		ms.impact.Partial = "the trial run stopped at the " + domain.FormatSeconds(db.opts.QueryTimeout) + "s deadline (--query-timeout) before the statement finished"
		return ms.impact, nil
	}
	if err != nil {
		return domain.Impact{}, err
	}
	return ms.impact, nil
}

// markVirtual flags table's entry as a virtual table's.
func (m *measure) markVirtual(table string, uncounted bool) {
	for i := range m.impact.Tables {
		if m.impact.Tables[i].Table == table {
			m.impact.Tables[i].Virtual = true
			m.impact.Tables[i].Uncounted = m.impact.Tables[i].Uncounted || uncounted
		}
	}
}

// schemaRow is one sqlite_schema row, with its root page to tell a
// rename from a drop and a create.
type schemaRow struct {
	typ, name, sql string
	root           int64
}

// schema reads main's sqlite_schema on the call's connection, inside its
// transaction, with the policy suspended (the server's own query).
func (c *call) schema() ([]schemaRow, error) {
	c.suspended = true
	defer func() { c.suspended = false }()
	st, _, err := c.h.Prepare("SELECT type, name, coalesce(sql, ''), coalesce(rootpage, 0) FROM main.sqlite_schema ORDER BY rowid")
	if err != nil {
		return nil, err
	}
	defer st.Finalize()
	var out []schemaRow
	v := make([]any, 4)
	for {
		more, err := st.Step()
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
		st.Row(v)
		r := schemaRow{}
		r.typ, _ = v[0].(string)
		r.name, _ = v[1].(string)
		r.sql, _ = v[2].(string)
		r.root, _ = v[3].(int64)
		out = append(out, r)
	}
}

// diffSchema lists what changed between two readings of sqlite_schema,
// leaving out SQLite's internal objects and virtual tables' shadow tables
// (their virtual table is named instead). rows are the counted tables'
// rows before the statement.
func diffSchema(before, after []schemaRow, rows map[string]int64, shadow map[string]bool) []domain.ObjectChange {
	hidden := func(r schemaRow) bool {
		n := strings.ToLower(r.name)
		return domain.IsInternalName(n) || shadow[n] || strings.HasPrefix(n, "sqlite_autoindex_")
	}
	count := func(name string) int64 {
		if n, ok := rows[strings.ToLower(name)]; ok {
			return n
		}
		return -1
	}
	byName := map[string]schemaRow{}
	for _, r := range after {
		byName[strings.ToLower(r.name)] = r
	}
	old := map[string]bool{}
	var out []domain.ObjectChange
	for _, b := range before {
		old[strings.ToLower(b.name)] = true
		if hidden(b) {
			continue
		}
		a, ok := byName[strings.ToLower(b.name)]
		switch {
		case !ok:
			ch := domain.ObjectChange{Change: "dropped", Type: b.typ, Name: b.name, Rows: count(b.name)}
			for _, x := range after {
				if b.root != 0 && x.root == b.root && x.typ == b.typ && !containsName(before, x.name) {
					ch.Change, ch.NewName = "renamed", x.name
				}
			}
			out = append(out, ch)
		case a.sql != b.sql || a.typ != b.typ:
			out = append(out, domain.ObjectChange{Change: "altered", Type: b.typ, Name: b.name, Rows: count(b.name)})
		}
	}
	for _, a := range after {
		if old[strings.ToLower(a.name)] || hidden(a) || renamedTo(out, a.name) {
			continue
		}
		out = append(out, domain.ObjectChange{Change: "created", Type: a.typ, Name: a.name, Rows: -1})
	}
	return out
}

func containsName(rows []schemaRow, name string) bool {
	for _, r := range rows {
		if strings.EqualFold(r.name, name) {
			return true
		}
	}
	return false
}

func renamedTo(changes []domain.ObjectChange, name string) bool {
	for _, c := range changes {
		if c.Change == "renamed" && strings.EqualFold(c.NewName, name) {
			return true
		}
	}
	return false
}
