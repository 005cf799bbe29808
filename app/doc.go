// Package app holds the use cases: one method per tool, written against the
// interfaces of package ports and the rules of package domain. It knows
// nothing of SQLite, ripgrep or MCP; the adapters do.
package app
