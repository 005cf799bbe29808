package domain

import (
	"sort"
	"strconv"
	"strings"
)

// Impact is what one statement would do to the database, measured by
// running it in a transaction that is rolled back (a dry run): every
// object it drops, creates or changes, and every table whose rows it
// deletes, changes or adds, its triggers' and foreign-key cascades' work
// included (docs/decisions.md#confirmation).
type Impact struct {
	// Objects are the schema changes, in the order of sqlite_schema.
	Objects []ObjectChange
	// Tables are the tables whose rows change, sorted by name.
	Tables []TableChange
	// Triggers are the triggers compiled with the statement (each fires
	// when its condition holds).
	Triggers []string
	// RowsAffected is SQLite's count of the statement's own rows, -1 when
	// it changed no rows of its own kind; the real run is compared with it.
	RowsAffected int64
	// Partial, when set, says why the measurement did not finish: the
	// counts are then lower bounds ("at least").
	Partial string
}

// ObjectChange is one schema object a statement drops, creates or alters.
type ObjectChange struct {
	// Change is "dropped", "created", "altered" or "renamed".
	Change string
	// Type is SQLite's: table, index, view, trigger.
	Type string
	// Name is the object's name; for a rename, its old name.
	Name string
	// NewName is a renamed object's new name.
	NewName string
	// Rows is how many rows a dropped or altered table held, -1 when not
	// a table or not counted.
	Rows int64
}

// TableChange is the rows one table loses, changes and gains.
type TableChange struct {
	Table                      string
	Deleted, Updated, Inserted int64
	// Virtual is true for a virtual table (FTS5, R*Tree): SQLite reports
	// its rows only as a count of the statement's own, so Uncounted says
	// when a trigger wrote it and the rows are not known.
	Virtual, Uncounted bool
}

// Empty reports whether the statement would change nothing at all.
func (im Impact) Empty() bool {
	if len(im.Objects) > 0 || im.Partial != "" {
		return false
	}
	for _, t := range im.Tables {
		if t.Deleted+t.Updated+t.Inserted > 0 || t.Uncounted {
			return false
		}
	}
	return true
}

// Overwrites reports whether the statement would delete or change rows
// or objects that exist (what --confirm writes asks about in write_query).
func (im Impact) Overwrites() bool {
	for _, o := range im.Objects {
		if o.Change != "created" {
			return true
		}
	}
	for _, t := range im.Tables {
		if t.Deleted+t.Updated > 0 || t.Uncounted {
			return true
		}
	}
	return im.Partial != ""
}

// Overwritten is how many rows the statement deletes or changes, in every
// table.
func (im Impact) Overwritten() int64 {
	var n int64
	for _, t := range im.Tables {
		n += t.Deleted + t.Updated
	}
	return n
}

// Add counts one row change of table (the pre-update hook's report).
func (im *Impact) Add(table string, op Action) { im.AddRows(table, op, 1) }

// AddRows counts n row changes of table; an op other than INSERT, UPDATE
// or DELETE only makes sure the table is listed.
func (im *Impact) AddRows(table string, op Action, n int64) {
	i := sort.Search(len(im.Tables), func(i int) bool { return im.Tables[i].Table >= table })
	if i == len(im.Tables) || im.Tables[i].Table != table {
		im.Tables = append(im.Tables, TableChange{})
		copy(im.Tables[i+1:], im.Tables[i:])
		im.Tables[i] = TableChange{Table: table}
	}
	switch op {
	case ActionDelete:
		im.Tables[i].Deleted += n
	case ActionUpdate:
		im.Tables[i].Updated += n
	case ActionInsert:
		im.Tables[i].Inserted += n
	}
}

// Lines renders the impact for a person, one change a line, exact counts
// unless Partial says why they are lower bounds.
func (im Impact) Lines() []string {
	at := ""
	if im.Partial != "" {
		at = "at least "
	}
	var out []string
	for _, o := range im.Objects {
		l := "- " + o.Type + " " + Quote(o.Name) + " is " + o.Change
		if o.Change == "renamed" {
			l += " to " + Quote(o.NewName)
		}
		if o.Rows >= 0 && o.Type == "table" && o.Change != "created" {
			l += " (it holds " + plural(o.Rows, "row") + ")"
		}
		out = append(out, l)
	}
	for _, t := range im.Tables {
		var parts []string
		if t.Deleted > 0 {
			parts = append(parts, at+plural(t.Deleted, "row")+" deleted")
		}
		if t.Updated > 0 {
			parts = append(parts, at+plural(t.Updated, "row")+" changed")
		}
		if t.Inserted > 0 {
			parts = append(parts, at+plural(t.Inserted, "row")+" added")
		}
		kind := "table"
		if t.Virtual {
			kind = "virtual table"
		}
		if t.Uncounted {
			parts = append(parts, "rows written by a trigger (SQLite cannot count a virtual table's rows there)")
		}
		if len(parts) == 0 {
			continue
		}
		out = append(out, "- "+kind+" "+Quote(t.Table)+": "+strings.Join(parts, ", "))
	}
	if len(im.Triggers) > 0 {
		qs := make([]string, len(im.Triggers))
		for i, t := range im.Triggers {
			qs[i] = Quote(t)
		}
		out = append(out, "- triggers that run with it: "+strings.Join(qs, ", ")+" (their changes are counted above)")
	}
	if im.Partial != "" {
		out = append(out, "- the measurement did not finish ("+im.Partial+"), so the counts are lower bounds")
	}
	if len(out) == 0 {
		out = append(out, "- nothing would change")
	}
	return out
}

// Detail is the impact as the call's audit row records it.
func (im Impact) Detail() Detail {
	objs := make([]string, 0, len(im.Objects))
	for _, o := range im.Objects {
		s := o.Change + " " + o.Type + " " + o.Name
		if o.NewName != "" {
			s += " to " + o.NewName
		}
		if o.Rows >= 0 && o.Type == "table" && o.Change != "created" {
			s += " (" + plural(o.Rows, "row") + ")"
		}
		objs = append(objs, s)
	}
	rows := Detail{}
	for _, t := range im.Tables {
		rows = append(rows, Field{Key: t.Table, Value: Detail{{Key: "deleted", Value: t.Deleted}, {Key: "updated", Value: t.Updated}, {Key: "inserted", Value: t.Inserted}}})
	}
	d := Detail{{Key: "objects", Value: objs}, {Key: "rows", Value: rows}}
	if im.Partial != "" {
		d = append(d, Field{Key: "partial", Value: im.Partial})
	}
	return d
}

func plural(n int64, what string) string {
	s := strconv.FormatInt(n, 10) + " " + what
	if n != 1 {
		s += "s"
	}
	return s
}

// Question is what a person is asked before a statement runs: made by the
// server from the measured impact, never from the agent's words alone.
type Question struct {
	// Tool is the tool that would run the statement.
	Tool string
	// Session is the calling session's id, for the approval queue.
	Session string
	// SQL is the statement as the agent sent it.
	SQL string
	// Reason is the agent's reason, quoted as the agent's.
	Reason string
	// Impact is what the dry run measured.
	Impact Impact
	// Snapshot says what is written before it runs ("" when nothing is:
	// write_query takes none) and Undo how to go back.
	Snapshot, Undo string
}

// maxQuotedSQL bounds how much of the agent's SQL a question quotes.
const maxQuotedSQL = 2000

// Text is the question as a person reads it.
func (q Question) Text() string {
	var b strings.Builder
	b.WriteString("An AI agent asks to run this statement with " + q.Tool + ". What it would do, measured by the server in a rolled-back trial run:\n")
	for _, l := range q.Impact.Lines() {
		b.WriteString(l + "\n")
	}
	sql := q.SQL
	if r := []rune(sql); len(r) > maxQuotedSQL {
		sql = string(r[:maxQuotedSQL]) + " [...]"
	}
	b.WriteString("\nThe statement:\n" + sql + "\n")
	if q.Reason != "" {
		b.WriteString("\nThe agent's own reason (its words, not checked): " + strconv.Quote(q.Reason) + "\n")
	}
	if q.Snapshot != "" {
		b.WriteString("\n" + q.Snapshot + "\n")
	}
	if q.Undo != "" {
		b.WriteString(q.Undo + "\n")
	}
	b.WriteString("\nRun it?")
	return Visible(b.String())
}

// Visible returns s with every control character but newline and tab
// (C0, DEL, C1) and every bidirectional control (U+200E, U+200F,
// U+202A-U+202E, U+2066-U+2069) written as \u escapes: a person reads what
// a statement does, never text that moves their cursor or reorders
// what they see.
func Visible(s string) string {
	clean := true
	for _, r := range s {
		if invisible(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return true
	}
	return false
}
