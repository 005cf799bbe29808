package settings

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/streamhttp"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/oauth"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Environment variables of the HTTP transport.
const (
	envHTTP          = "MCP_SQLITE_HTTP"
	envAuthTokenFile = "MCP_SQLITE_AUTH_TOKEN_FILE"
	EnvAuthToken     = "MCP_SQLITE_AUTH_TOKEN"
	envAllowedHosts  = "MCP_SQLITE_ALLOWED_HOSTS"
	envMaxSessions   = "MCP_SQLITE_MAX_SESSIONS"
	envSessionIdle   = "MCP_SQLITE_SESSION_IDLE_TIMEOUT"
	envOAuthIssuer   = "MCP_SQLITE_OAUTH_ISSUER"
	envOAuthAudience = "MCP_SQLITE_OAUTH_AUDIENCE"
)

// Defaults of the HTTP transport.
const (
	defaultMaxSessions = 16
	defaultSessionIdle = 30 * time.Minute
	// minTokenBytes is the shortest bearer token accepted: a guessable
	// token is no lock.
	minTokenBytes = 16
)

// HTTPConfig is the HTTP transport's part of the configuration.
type HTTPConfig struct {
	// Addr is the address to listen on; "" serves stdio.
	Addr string
	// Token is the bearer token (from the file or the variable), "" for
	// none. Never logged.
	Token string
	// TokenSource names where the token came from, for messages.
	TokenSource string
	// AllowedHosts are extra host names allowed in Host and Origin.
	AllowedHosts []string
	// MaxSessions bounds the MCP sessions open at once.
	MaxSessions int
	// SessionIdle closes a session idle this long.
	SessionIdle time.Duration
	// OAuth, when set, verifies OAuth access tokens instead of Token
	// (--oauth-issuer, --oauth-audience).
	OAuth *streamhttp.OAuthOptions
	// tokenWarning, when not "", is the start-up warning about a token
	// file other users can read.
	tokenWarning string
}

var _ streamhttp.TokenVerifier = (*oauth.TokenVerifier)(nil)

// httpSettings are the HTTP flags as given.
type httpSettings struct {
	addr, tokenFile, hosts   string
	issuer, audience         string
	maxSessions, sessionIdle rawValue
}

// registerHTTPFlags adds the HTTP flags to fs, their variables as defaults.
func registerHTTPFlags(fs *flag.FlagSet, s *httpSettings, getenv func(string) string) {
	fs.StringVar(&s.addr, "http", getenv(envHTTP), "")
	fs.StringVar(&s.tokenFile, "auth-token-file", getenv(envAuthTokenFile), "")
	fs.StringVar(&s.hosts, "allowed-hosts", getenv(envAllowedHosts), "")
	fs.StringVar(&s.issuer, "oauth-issuer", getenv(envOAuthIssuer), "")
	fs.StringVar(&s.audience, "oauth-audience", getenv(envOAuthAudience), "")
	for _, n := range []struct {
		v         *rawValue
		flag, env string
	}{{&s.maxSessions, "max-sessions", envMaxSessions}, {&s.sessionIdle, "session-idle-timeout", envSessionIdle}} {
		n.v.flag = n.flag
		if t := getenv(n.env); t != "" {
			n.v.text, n.v.source = t, n.env
		}
		fs.Var(n.v, n.flag, "")
	}
}

// parseHTTP turns the HTTP settings into an HTTPConfig. The token file is
// read here, so a bad one stops the start with one line.
func parseHTTP(s *httpSettings, getenv func(string) string, names *flagNames) (HTTPConfig, error) {
	c := HTTPConfig{Addr: strings.TrimSpace(s.addr), MaxSessions: defaultMaxSessions, SessionIdle: defaultSessionIdle}
	if s.maxSessions.source != "" {
		n, err := parseInt(&s.maxSessions)
		if err != nil {
			return c, err
		}
		if n < 1 {
			return c, Usagef("invalid value %q for %s: want at least 1", s.maxSessions.text, s.maxSessions.source)
		}
		c.MaxSessions = n
	}
	if s.sessionIdle.source != "" {
		d, err := parseSeconds(&s.sessionIdle)
		if err != nil {
			return c, err
		}
		if d <= 0 {
			return c, Usagef("invalid value %q for %s: want a positive number of seconds", s.sessionIdle.text, s.sessionIdle.source)
		}
		c.SessionIdle = d
	}
	for _, h := range strings.Split(s.hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.AllowedHosts = append(c.AllowedHosts, h)
		}
	}
	switch {
	case s.tokenFile != "":
		b, perm, err := readTokenFile(s.tokenFile)
		if err != nil {
			return c, Usagef("%s: cannot read the token file: %v", names.of("auth-token-file"), errors.Unwrap(err))
		}
		c.Token, c.TokenSource = strings.TrimSpace(string(b)), names.of("auth-token-file")
		if perm&0o044 != 0 && runtime.GOOS != "windows" {
			c.tokenWarning = fmt.Sprintf("warning: %s %s is readable by other users of this machine (mode %04o), and whoever reads the token "+
				"can call every tool; run chmod 600 %s", names.of("auth-token-file"), s.tokenFile, perm, s.tokenFile)
		}
	case getenv(EnvAuthToken) != "":
		c.Token, c.TokenSource = strings.TrimSpace(getenv(EnvAuthToken)), EnvAuthToken
	}
	if c.TokenSource != "" && len(c.Token) < minTokenBytes {
		return c, Usagef("the bearer token in %s is shorter than %d characters; use a random one, e.g. `openssl rand -hex 32`", c.TokenSource, minTokenBytes)
	}
	if err := parseOAuth(&c, s, names); err != nil {
		return c, err
	}
	if c.Addr == "" {
		return HTTPConfig{}, nil // stdio: the settings above were checked, and do not apply
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return c, Usagef("invalid value %q for %s: want HOST:PORT, e.g. 127.0.0.1:8080", c.Addr, names.of("http"))
	}
	if c.Token == "" && c.OAuth == nil && !streamhttp.IsLoopbackAddr(c.Addr) {
		return c, Usagef("%s %s is reachable from other machines, so it needs a bearer token: set --auth-token-file PATH or %s (or listen on 127.0.0.1)", names.of("http"), c.Addr, EnvAuthToken)
	}
	return c, nil
}

// parseOAuth reads --oauth-issuer and --oauth-audience. Both or neither;
// and not with a static token: a shared secret would call every tool,
// past the scopes, the audience and the expiry OAuth checks, so a server
// takes one kind of credential (docs/decisions.md#oauth-resource-server).
func parseOAuth(c *HTTPConfig, s *httpSettings, names *flagNames) error {
	issuer, aud := strings.TrimSpace(s.issuer), strings.TrimSpace(s.audience)
	if issuer != "" {
		if err := oauth.CheckIssuer(issuer); err != nil {
			return Usagef("%s: %v", names.of("oauth-issuer"), err)
		}
	}
	if aud != "" {
		if err := oauth.CheckAudience(aud); err != nil {
			return Usagef("%s: %v", names.of("oauth-audience"), err)
		}
	}
	if issuer == "" && aud == "" {
		return nil
	}
	if issuer == "" || aud == "" {
		return Usagef("%s and %s go together: the issuer whose tokens are accepted, and this server's URL the tokens must name (e.g. https://db.example.com/mcp)",
			names.of("oauth-issuer"), names.of("oauth-audience"))
	}
	if c.TokenSource != "" {
		return Usagef("%s and %s cannot be used together: a static token would call every tool whatever the OAuth scopes; choose one", names.of("oauth-issuer"), c.TokenSource)
	}
	v, err := oauth.New(oauth.Options{Issuer: issuer, Audience: aud})
	if err != nil {
		return Usagef("%s / %s: %v", names.of("oauth-issuer"), names.of("oauth-audience"), err)
	}
	c.OAuth = &streamhttp.OAuthOptions{Verifier: v, Issuer: issuer, Resource: aud}
	return nil
}

// readTokenFile reads the token file and the permission bits of the file
// it read (its Stat, not the path's again).
func readTokenFile(path string) ([]byte, fs.FileMode, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	return b, fi.Mode().Perm(), err
}

// httpUsage is the HTTP part of --help.
func httpUsage() string {
	return fmt.Sprintf(`
Serving over HTTP (Streamable HTTP at /mcp, GET /healthz); stdio when unset:
  --http ADDR               listen on ADDR (e.g. 127.0.0.1:8080) instead of stdio
                            %[1]s
  --auth-token-file PATH    bearer token clients must send (Authorization: Bearer);
                            required unless ADDR is a loopback address
                            %[2]s
                            (or the token itself in %[3]s)
  --oauth-issuer URL        accept OAuth access tokens (JWT) from this authorization
                            server instead of a static token; https://, or http://
                            on loopback only
                            %[9]s
  --oauth-audience URI      this server's URL, which the tokens' aud must name
                            (RFC 8707), e.g. https://db.example.com/mcp
                            %[10]s
  --allowed-hosts LIST      comma-separated host names accepted in Host and Origin
                            besides loopback names and the bound address
                            %[4]s
  --max-sessions N          MCP sessions open at once (default %[5]d)
                            %[6]s
  --session-idle-timeout SECONDS  close a session idle this long (default %[7]s)
                            %[8]s
`, envHTTP, envAuthTokenFile, EnvAuthToken, envAllowedHosts, defaultMaxSessions, envMaxSessions,
		domain.FormatSeconds(defaultSessionIdle), envSessionIdle, envOAuthIssuer, envOAuthAudience)
}
