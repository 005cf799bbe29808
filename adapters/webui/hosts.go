package webui

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// checkHost says why a request's Host or Origin is refused, or "": the
// same rule as for /mcp (a defence against DNS rebinding and cross-site
// requests): loopback names and the names the server was told about.
func (h *Handler) checkHost(r *http.Request) string {
	if !h.allowedHost(r.Host) {
		return "invalid Host header: this web view answers only to loopback names and the names given with --allowed-hosts"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !h.allowedHost(u.Host) {
		return "invalid Origin header: forms are accepted only from this web view's own pages"
	}
	return ""
}

func (h *Handler) allowedHost(hostport string) bool {
	host := normHost(hostport)
	if host == "" {
		return false
	}
	if host == "localhost" || h.hosts[host] {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// normHost is the host of host[:port], lower case, without brackets or a
// trailing dot.
func normHost(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
}
