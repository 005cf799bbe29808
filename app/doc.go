// Package app holds the use cases: one method per tool on [Service],
// written against the interfaces of package ports and the rules of package
// domain. Every call passes through Service.run, which takes a call slot,
// arms the deadline, turns an untranslated error into domain.ErrInternal
// and records the call's audit row before the answer leaves. It knows
// nothing of SQLite, ripgrep or MCP; the adapters do, and its own tests run
// against the fakes of test/fake.
package app
