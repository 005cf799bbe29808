package streamhttp

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
)

// checkHost says why a request's Host or Origin header is refused, or "".
// A web page the user visits can make the browser send requests to a
// server on this machine (DNS rebinding: a name of the attacker's that
// resolves to 127.0.0.1; or a plain cross-site request), so only loopback
// names and the names the server was told about may appear in Host, and
// an Origin, when present, must name one of them too.
func (h *Handler) checkHost(r *http.Request) string {
	if !h.allowedHost(r.Host) {
		return "invalid Host header " + frame.QuoteCut(r.Host) + ": this server answers only to loopback names and the names given with --allowed-hosts (a defence against DNS rebinding); " +
			"start it with --allowed-hosts NAME to accept this one"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !h.allowedHost(u.Host) {
		return "invalid Origin header " + frame.QuoteCut(origin) + ": requests from web pages are accepted only from loopback origins and the names given with --allowed-hosts; " +
			"start the server with --allowed-hosts NAME to accept this one"
	}
	return ""
}

// allowedHost reports whether a host[:port] names this server.
func (h *Handler) allowedHost(hostport string) bool {
	host := normHost(hostport)
	if host == "" {
		return false
	}
	return isLoopbackName(host) || h.hosts[host]
}

// normHost is the host of host[:port], lower case, without brackets or a
// trailing dot.
func normHost(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}

// isLoopbackName reports whether host (normHost'ed) is localhost or a
// loopback address.
func isLoopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// IsLoopbackAddr reports whether a listen address (host:port) is reachable
// only from this machine: localhost or a loopback IP. An empty host (every
// interface), 0.0.0.0, :: and other names are not.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return isLoopbackName(normHost(host))
}
