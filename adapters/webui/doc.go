// Package webui is the web view: a driving adapter that serves, to a person
// in a browser, what the agent remembered and did (memory, audit, snapshots,
// the user's tables) and the person's actions on it (undo, approve, deny).
//
// Pages are server-rendered with html/template from templates and a style
// sheet embedded in the binary; no page runs a script and none fetches
// anything from another origin (the Content-Security-Policy forbids both).
// Everything the agent wrote is data: html/template escapes it, and no link
// target is built from it. Reads go through the read tier's statement
// runner (the read_query tool's policy and caps) and, for the user's
// tables, through the read_query tool itself; actions go through the same
// use cases the CLI commands call. The package imports no other adapter and
// not app: its dependencies are the small interfaces in deps.go, which
// cmd wires.
package webui
