package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listTTL is how long a client may keep tools/list and server/discover
// answers (ttlMs, 2026-07-28 and later). The tools a server offers are
// fixed when it starts (the mode: read-only, memory); only a restart in
// another mode changes them, and a client then sees the new list within
// this time (a call of a tool gone in between gets "unknown tool").
const listTTL = 10 * time.Minute

// cacheable sets the cache fields of the results that carry them: the
// tool list and discovery for listTTL, other lists (this server has none)
// not at all. With OAuth the tool list depends on the token's scopes, so
// it is private to the client that asked.
func cacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	switch req.(type) {
	case *mcp.ListToolsRequest, *mcp.DiscoverRequest:
		c.TTLMs = int(listTTL / time.Millisecond)
	default:
		return
	}
	if e := req.GetExtra(); e != nil && e.TokenInfo != nil {
		c.CacheScope = "private"
	}
}
