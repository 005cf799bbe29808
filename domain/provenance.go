package domain

import "strings"

// Provenance says where an event came from (docs/decisions.md#provenance):
// the MCP client that asked for it, over which transport and HTTP
// session, or the command line. It is kept beside the chain, in
// [ProvenanceTable], keyed by event id; the chain does not hash it, so a
// file the reference made verifies as it always did.
type Provenance struct {
	// Transport is [TransportStdio], [TransportHTTP] or [TransportCLI].
	Transport string
	// Client and ClientVersion are the MCP client's own name and version,
	// from its initialize request's clientInfo ("" when it sent none).
	Client, ClientVersion string
	// HTTPSession is the Mcp-Session-Id of an HTTP call ("" on stdio and
	// for a stateless HTTP call).
	HTTPSession string
	// Command is the subcommand that wrote the event from the command
	// line ("call append_event", "import").
	Command string
}

// The transports a [Provenance] names.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportCLI   = "cli"
)

// ProvenanceTable is the side table of each event's [Provenance]. It is a
// server table: the agent may read it but never write it.
const ProvenanceTable = "memory_provenance"

// IsZero reports whether p says nothing (no row is stored for it).
func (p Provenance) IsZero() bool { return p == Provenance{} }

// String is p in one short line: "claude-code 1.2 over stdio",
// "cursor 0.4 over http session 3f2a...", "cli: call append_event".
func (p Provenance) String() string {
	if p.Transport == TransportCLI {
		return "cli: " + p.Command
	}
	var parts []string
	if p.Client != "" {
		parts = append(parts, p.Client)
	} else {
		parts = append(parts, "unnamed client")
	}
	if p.ClientVersion != "" {
		parts = append(parts, p.ClientVersion)
	}
	if p.Transport != "" {
		parts = append(parts, "over "+p.Transport)
	}
	if p.HTTPSession != "" {
		parts = append(parts, "session "+p.HTTPSession)
	}
	return strings.Join(parts, " ")
}
