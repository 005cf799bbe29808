package domain

import "strconv"

// Action is one of SQLite's authorizer action codes. The numbers are those of
// sqlite3.h, so an adapter converts a driver's code with Action(code).
type Action int

// The authorizer action codes, numbered as in sqlite3.h.
const (
	ActionCreateIndex       Action = 1
	ActionCreateTable       Action = 2
	ActionCreateTempIndex   Action = 3
	ActionCreateTempTable   Action = 4
	ActionCreateTempTrigger Action = 5
	ActionCreateTempView    Action = 6
	ActionCreateTrigger     Action = 7
	ActionCreateView        Action = 8
	ActionDelete            Action = 9
	ActionDropIndex         Action = 10
	ActionDropTable         Action = 11
	ActionDropTempIndex     Action = 12
	ActionDropTempTable     Action = 13
	ActionDropTempTrigger   Action = 14
	ActionDropTempView      Action = 15
	ActionDropTrigger       Action = 16
	ActionDropView          Action = 17
	ActionInsert            Action = 18
	ActionPragma            Action = 19
	ActionRead              Action = 20
	ActionSelect            Action = 21
	ActionTransaction       Action = 22
	ActionUpdate            Action = 23
	ActionAttach            Action = 24
	ActionDetach            Action = 25
	ActionAlterTable        Action = 26
	ActionReindex           Action = 27
	ActionAnalyze           Action = 28
	ActionCreateVTable      Action = 29
	ActionDropVTable        Action = 30
	ActionFunction          Action = 31
	ActionSavepoint         Action = 32
	ActionRecursive         Action = 33
)

// actionLabels name each action the way denial messages do. The reference
// labels only the actions that can appear in "<label> is not allowed"; the
// others get a plain name here too, which only shows up in logs.
var actionLabels = map[Action]string{
	ActionCreateIndex:       "CREATE INDEX",
	ActionCreateTable:       "CREATE TABLE",
	ActionCreateTempIndex:   "CREATE TEMP INDEX",
	ActionCreateTempTable:   "CREATE TEMP TABLE",
	ActionCreateTempTrigger: "CREATE TEMP TRIGGER",
	ActionCreateTempView:    "CREATE TEMP VIEW",
	ActionCreateTrigger:     "CREATE TRIGGER",
	ActionCreateView:        "CREATE VIEW",
	ActionDelete:            "DELETE",
	ActionDropIndex:         "DROP INDEX",
	ActionDropTable:         "DROP TABLE",
	ActionDropTempIndex:     "DROP TEMP INDEX",
	ActionDropTempTable:     "DROP TEMP TABLE",
	ActionDropTempTrigger:   "DROP TEMP TRIGGER",
	ActionDropTempView:      "DROP TEMP VIEW",
	ActionDropTrigger:       "DROP TRIGGER",
	ActionDropView:          "DROP VIEW",
	ActionInsert:            "INSERT",
	ActionPragma:            "PRAGMA",
	ActionRead:              "READ",
	ActionSelect:            "SELECT",
	ActionTransaction:       "transaction control",
	ActionUpdate:            "UPDATE",
	ActionAttach:            "ATTACH",
	ActionDetach:            "DETACH",
	ActionAlterTable:        "ALTER TABLE",
	ActionReindex:           "REINDEX",
	ActionAnalyze:           "ANALYZE",
	ActionCreateVTable:      "CREATE VIRTUAL TABLE",
	ActionDropVTable:        "DROP VIRTUAL TABLE",
	ActionFunction:          "FUNCTION",
	ActionSavepoint:         "SAVEPOINT",
	ActionRecursive:         "RECURSIVE",
}

// Label names the action inside denial messages ("CREATE TABLE",
// "transaction control", ...); a code SQLite does not define is "action <n>".
func (a Action) Label() string {
	if l, ok := actionLabels[a]; ok {
		return l
	}
	return "action " + strconv.Itoa(int(a))
}

// IsDDL reports whether the action changes the schema of the main database
// (the reference's DDL_ACTIONS). Temporary-object actions are not in the set:
// the policy refuses them in every tier.
func (a Action) IsDDL() bool {
	switch a {
	case ActionCreateTable, ActionCreateIndex, ActionReindex, ActionAnalyze,
		ActionDropTable, ActionDropView, ActionDropIndex, ActionDropTrigger,
		ActionDropVTable, ActionAlterTable, ActionCreateTrigger, ActionCreateView,
		ActionCreateVTable:
		return true
	}
	return false
}

// isTempObject reports whether the action creates or drops a temporary object.
func (a Action) isTempObject() bool {
	switch a {
	case ActionCreateTempIndex, ActionCreateTempTable, ActionCreateTempTrigger, ActionCreateTempView,
		ActionDropTempIndex, ActionDropTempTable, ActionDropTempTrigger, ActionDropTempView:
		return true
	}
	return false
}

// Tier is how much a tool's SQL may change: each SQL tool runs in one tier.
type Tier int

// The three tiers, from least to most powerful.
const (
	// TierRead allows reading only (read_query and every read-side tool).
	TierRead Tier = iota + 1
	// TierWrite adds DML and additive DDL (write_query).
	TierWrite
	// TierDestructive adds DELETE and destructive DDL (destructive_query).
	TierDestructive
)

// valid reports whether t is one of the three tiers.
func (t Tier) valid() bool { return t >= TierRead && t <= TierDestructive }
