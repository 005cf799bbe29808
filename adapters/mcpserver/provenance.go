package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// provenanceContext is ctx carrying where the call comes from
// (docs/decisions.md#provenance): the client's name and version from its
// initialize request (or, for a stateless HTTP call, from the request's
// _meta), the transport, and on HTTP the session's audit id (the one its
// events and audit rows carry; never the Mcp-Session-Id itself, which
// the agent could read back and replay).
//
// A ctx that carries a provenance already keeps it: the command line's
// call subcommand serves its one call through this server and says so
// itself.
func (s *Server) provenanceContext(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if !ports.ProvenanceFrom(ctx).IsZero() {
		return ctx
	}
	p := domain.Provenance{Transport: domain.TransportStdio}
	if s.sessionID != nil {
		p.Transport, p.HTTPSession = domain.TransportHTTP, ports.SessionFrom(ctx)
	}
	var info *mcp.Implementation
	if req != nil && req.Session != nil {
		if ip := req.Session.InitializeParams(); ip != nil {
			info = ip.ClientInfo
		}
	}
	if info == nil && req != nil && req.Params != nil {
		info = req.ClientInfo()
	}
	if info != nil {
		p.Client, p.ClientVersion = info.Name, info.Version
	}
	return ports.WithProvenance(ctx, p)
}
