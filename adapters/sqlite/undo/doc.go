// Package undo finds what one destructive call changed by replaying it on
// a private copy of its snapshot, and restores exactly those objects in
// one transaction, keeping the memory and the audit log (ports.Undoer;
// docs/decisions.md#undo).
package undo
