package litestream

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	ls "github.com/benbjohnson/litestream"
	"github.com/benbjohnson/litestream/file"
	"github.com/benbjohnson/litestream/s3"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Schemes are the replica URL schemes this build supports: a local (or
// mounted) folder, and S3 or any S3-compatible store. Credentials, endpoint
// and region follow Litestream's own conventions: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (or LITESTREAM_ACCESS_KEY_ID and
// LITESTREAM_SECRET_ACCESS_KEY), LITESTREAM_S3_ENDPOINT, and the URL's
// ?endpoint=, ?region= and ?force-path-style= parameters.
var Schemes = domain.ReplicaSchemes

// CheckURL reports, in one sentence that says what to write instead, why raw
// cannot be used as a replica URL. It contacts nothing. It runs
// [domain.CheckReplicaURL] (which the server runs itself, without this
// package), then Litestream's own parsing.
func CheckURL(raw string) error {
	_, err := newClient(raw)
	return err
}

// newClient builds the Litestream replica client for raw.
func newClient(raw string) (ls.ReplicaClient, error) {
	if err := domain.CheckReplicaURL(raw, os.Getenv); err != nil {
		return nil, err
	}
	u, _ := url.Parse(raw) // parsed by CheckReplicaURL
	if strings.EqualFold(u.Scheme, "file") {
		return file.NewReplicaClient(filepath.Clean(filepath.FromSlash(u.Path))), nil
	}
	c, err := ls.NewReplicaClientFromURL(raw)
	if err != nil {
		return nil, fmt.Errorf("replica URL %q: %v", Redact(raw), err)
	}
	return c, nil
}

// Redact returns raw without user information or query parameters, which
// may carry secrets (an SSE customer key, a password), for logs and errors.
func Redact(raw string) string { return domain.RedactURL(raw) }

// setLogger points a client's log lines at log, when it has any.
func setLogger(c ls.ReplicaClient, log *slog.Logger) {
	if l, ok := c.(interface{ SetLogger(*slog.Logger) }); ok {
		l.SetLogger(log)
	}
}

// Compile-time checks that the clients this package builds are replica
// clients.
var (
	_ ls.ReplicaClient = (*file.ReplicaClient)(nil)
	_ ls.ReplicaClient = (*s3.ReplicaClient)(nil)
)
