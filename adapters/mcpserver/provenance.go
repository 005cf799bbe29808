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
		info = ClientInfo(req)
	}
	if info != nil {
		p.Client, p.ClientVersion = info.Name, info.Version
	}
	return ports.WithProvenance(ctx, p)
}

// ClientInfo is req.ClientInfo(): the client's name and version from the
// request's _meta (the stateless era) or else from its session's
// initialize. A _meta entry of plain strings, which is what a client
// sends, is read directly: the SDK re-encodes the entry and decodes it
// again with a decoder of 32 KiB, on every call of the stateless era
// (docs/decisions.md#per-call-costs). Anything else goes to the SDK.
func ClientInfo(req *mcp.CallToolRequest) *mcp.Implementation {
	if req.Params != nil {
		if m, ok := req.Params.GetMeta()[mcp.MetaKeyClientInfo].(map[string]any); ok {
			if info, ok := plainImplementation(m); ok {
				return info
			}
		}
	}
	return req.ClientInfo()
}

// plainImplementation is m as an Implementation when every entry is one
// of its string fields; ok is false otherwise.
func plainImplementation(m map[string]any) (*mcp.Implementation, bool) {
	info := &mcp.Implementation{}
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		switch k {
		case "name":
			info.Name = s
		case "version":
			info.Version = s
		case "title":
			info.Title = s
		case "description":
			info.Description = s
		case "websiteUrl":
			info.WebsiteURL = s
		default:
			return nil, false
		}
	}
	return info, true
}
