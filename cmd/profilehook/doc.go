// Package profilehook is a measurement hook for the server and the
// benchmarks' do-nothing server, built only with -tags profilehook (never
// in a release): with MCP_SQLITE_CPUPROFILE=<file> the process records a
// CPU profile, with MCP_SQLITE_TRACE=<file> a runtime trace, from start
// until it receives SIGUSR2, then writes them. The load generator sends
// the signal after its timed loop, so the profile holds the calls and
// little of the start. A binary takes it with a blank import in a file
// of its own under the same tag.
package profilehook
