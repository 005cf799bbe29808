// Package golden pins the bytes an agent reads: the answer text of every
// tool, its refusals, and the tools/list surface (descriptions and input
// schemas), each compared byte for byte with a file under testdata/.
//
// Each case starts the in-process server (test/harness, wired by cmd/wire
// as the binary is) on a fixture built from testdata/fixture.sql, with a
// fixed clock and the harness's fixed session id, so every timestamp,
// snapshot name and hash is the same on every run. The only value that
// differs between runs, the temporary folder, is rewritten by one
// function, scrub.
//
// TestEveryToolHasAGolden fails when a tool has no case. A failing case
// prints a -want +got line diff. A golden file changes only on purpose:
// after an intended change to what a tool says (a reworded or shortened
// description changes testdata/tools_list.json.golden, a new trailer the
// answers), run -update and review the diff before committing it:
//
//	go test ./test/golden -update
//	git diff test/golden/testdata
package golden
