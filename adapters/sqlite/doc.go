// Package sqlite is the SQLite adapter: it opens the database file with
// modernc.org/sqlite (pure Go, no cgo), bootstraps the server tables, runs
// agent SQL under the statement policy of package domain, and implements the
// statement runner, candidate source, impact meter and audit sink ports. [Store] owns the database's connections; each port is one
// service over it, named for the port and built with its New function
// (NewStatementRunner, ...). The sub-packages schema (schema reader, view
// writer), memory (the memory store: events, checkpoints, retractions,
// signatures, export and import rows), recall (memory search), approval
// (the approval queue) and undo are services over the Store too, through
// the names of seam.go; dbfile
// inspects a read-only session's file before SQLite opens it.
//
// Agent statements do not go through database/sql's Query: this package
// steps them with SQLite's own C API, through package engine (the only code
// that touches modernc.org/sqlite/lib), on a connection it holds
// exclusively. That is what lets it keep every value exactly as
// SQLite stores it (the driver turns TEXT in DATE columns into time.Time),
// find where the first statement ends the way SQLite does (the prepare tail),
// count bound parameters before anything runs, and stream rows under a cap.
// The authorizer and the pre-update hook are installed through the driver's
// public API.
package sqlite
