// Package approval is the approval queue in the database file itself
// (ports.Confirmer for the fallback "queue"): a question a person must
// answer is a row, a decision another, and any process on the file can
// list and decide them, as the pending, approve and deny commands do
// (docs/decisions.md#confirmation).
package approval
