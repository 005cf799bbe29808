package sqlite

import "fmt"

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

// FTSTerms exposes the FTS5 query's term count to the tests.
var FTSTerms = ftsTerms

// FTSQueryBytes and FTSQueryTerms are the bounds of one FTS5 query.
const FTSQueryBytes, FTSQueryTerms = ftsQueryBytes, ftsQueryTerms

// FTSRowTerms is the most distinct terms FTS5 indexes for one row.
const FTSRowTerms = ftsRowTerms
