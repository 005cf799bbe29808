package engine

import (
	"fmt"

	_ "modernc.org/sqlite" // the driver, for the tests that open a database
)

// BoundedFunctions names the built-ins agent connections get bounded
// replacements or wrappers of, as name/argument count (-1: any), for the
// tests that check the inventory.
func BoundedFunctions() []string {
	var out []string
	for _, f := range boundedFuncs {
		out = append(out, fmt.Sprintf("%s/%d", f.name, f.nArg))
	}
	for _, w := range fts5Wrapped {
		out = append(out, w.name+"/-1")
	}
	for _, f := range jsonPathFuncs {
		out = append(out, f.name+"/-1")
	}
	out = append(out, "json_patch/2", "jsonb_patch/2")
	return out
}
