package domain

import "fmt"

// ViewTriggersMessage refuses to replace view name while triggers (INSTEAD
// OF triggers, which make it writable) are defined on it: SQLite drops them
// with the old view, and create_view changes only the view.
func ViewTriggersMessage(name string, triggers []string) string {
	return fmt.Sprintf("view %s has trigger(s) %s, which replacing it would drop; "+ToolCreateView+" changes only the view. "+
		"Drop them with "+ToolDestructiveQuery+" first (it snapshots the database), then replace the view and create them again; "+
		"or save the new definition under another name", Quote(name), QuoteList(triggers))
}

// BrokenViewMessage explains why a new view definition was refused: SQLite
// could not use it (msg), for instance because it reads from the view itself.
func BrokenViewMessage(name, msg string, replaced bool) string {
	keep := "nothing was created"
	if replaced {
		keep = "the previous definition is unchanged and keeps working"
	}
	return fmt.Sprintf("the new definition of view %s does not work: %s (a view cannot read from itself, directly or through other views); %s. Fix select_sql and call "+ToolCreateView+" again",
		Quote(name), msg, keep)
}

// DependentViewMessage refuses a new definition of view name that breaks
// another view, dependent, which reads from it (msg is SQLite's error).
func DependentViewMessage(name, dependent, msg string) string {
	return fmt.Sprintf("the new definition of view %s would break view %s, which reads from it (%s); "+ToolCreateView+" changes only the view, "+
		"so the previous definition is unchanged. Keep the columns %s uses, or redefine %s first",
		Quote(name), Quote(dependent), msg, Quote(dependent), Quote(dependent))
}
