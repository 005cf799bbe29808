// Package domain holds the rules of mcp-sqlite-memory that do not depend on
// any technology: the declaration of every tool (tool.go, tools.go: name,
// tier, arguments with their defaults and bounds as functions of the
// limits), which SQLite authorizer actions each tier allows, how result rows
// become capped CSV, how the memory log is hash-chained and verified, how
// names are validated and how snapshots are named, the limits, and the
// error kinds every layer reports with. It imports the standard library
// only and performs no I/O, so every rule here is tested in isolation.
package domain
