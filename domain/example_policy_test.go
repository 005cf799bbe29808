package domain_test

import (
	"fmt"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The policy answers each action SQLite's authorizer reports while it
// compiles a statement: "" allows it, anything else is the refusal the agent
// reads, naming the tool to use instead. Here SQLite compiling
// "DELETE FROM notes" would report ActionDelete on table notes.
func ExamplePolicy_Check() {
	deleteNotes := domain.AuthRequest{Action: domain.ActionDelete, Arg1: "notes", Database: "main"}
	for _, tier := range []domain.Tier{domain.TierRead, domain.TierWrite, domain.TierDestructive} {
		verdict := domain.Policy{Tier: tier}.Check(deleteNotes)
		if verdict == "" {
			verdict = "allowed"
		}
		fmt.Printf("%s: %s\n", tier.Tool(), verdict)
	}
	// Output:
	// read_query: DELETE is not allowed in read_query; use destructive_query (it snapshots the database first)
	// write_query: DELETE is not allowed in write_query; use destructive_query (it snapshots the database first)
	// destructive_query: allowed
}

// The server's own tables are append-only in every tier, even the
// destructive one.
func ExamplePolicy_Check_serverTables() {
	p := domain.Policy{Tier: domain.TierDestructive}
	fmt.Println(p.Check(domain.AuthRequest{Action: domain.ActionDelete, Arg1: "memory_events", Database: "main"}))
	fmt.Printf("%q\n", p.Check(domain.AuthRequest{Action: domain.ActionRead, Arg1: "memory_events", Arg2: "content", Database: "main"}))
	// Output:
	// memory_events is managed by the server and is append-only; it cannot be changed through SQL tools
	// ""
}

// CheckSQL sees what the authorizer cannot: the driver passes an SQL NULL
// as "", so a PRAGMA set to ” would look like a read of it.
func ExamplePolicy_CheckSQL() {
	p := domain.Policy{Tier: domain.TierWrite}
	fmt.Println(p.CheckSQL("PRAGMA journal_mode = ''"))
	fmt.Printf("%q\n", p.CheckSQL("SELECT 1"))
	// Output:
	// PRAGMA journal_mode can only be read: setting it is not allowed (the server manages the connection); run PRAGMA journal_mode without a value or parentheses to read it
	// ""
}
