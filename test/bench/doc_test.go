// Package bench_test holds the benchmarks behind the budgets of
// docs/decisions.md#performance-budgets. Each
// figure has a baseline measured in the same run (database/sql directly, the
// sqlite3 CLI, cp, crypto/sha256, ripgrep), so results read as ratios that
// survive a noisy machine. `go run ./cmd/mcp-sqlite-memory-bench` runs them
// all and prints the table.
package bench_test
