// Package fake holds in-memory implementations of every driven port, for
// tests of the core (package app) that need no SQLite, no ripgrep and no
// file system. Each fake is a plain struct: fields say what it answers
// (rows, tables, an error), optional Fn fields replace a method outright,
// and it records what it was asked, so a test can check the core's
// decisions. [Store] bundles the database's fakes into one value that is
// also the audit sink, the way the SQLite store is, so the core seals a
// write's audit entry into the write as it does in production.
//
// The fakes are checked against the real adapters by the contract suites
// of package contract (the audit sink, the memory store, the schema reader
// and view writer), so a test that passes against them describes what the
// adapters do. The fakes of the ports that run SQL (Statements,
// CandidateRows) and of the searcher answer what a test tells them.
package fake
