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
)

// Schemes are the replica URL schemes this build supports: a local (or
// mounted) folder, and S3 or any S3-compatible store. Credentials, endpoint
// and region follow Litestream's own conventions: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (or LITESTREAM_ACCESS_KEY_ID and
// LITESTREAM_SECRET_ACCESS_KEY), LITESTREAM_S3_ENDPOINT, and the URL's
// ?endpoint=, ?region= and ?force-path-style= parameters.
var Schemes = []string{"file", "s3"}

// envCABundle is the AWS SDK's variable for a private certificate authority.
const envCABundle = "AWS_CA_BUNDLE"

// CheckURL reports, in one sentence that says what to write instead, why raw
// cannot be used as a replica URL. It contacts nothing.
func CheckURL(raw string) error {
	_, err := newClient(raw)
	return err
}

// newClient builds the Litestream replica client for raw.
func newClient(raw string) (ls.ReplicaClient, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("replica URL %q is not a URL; write file:///absolute/folder or s3://bucket/path", Redact(raw))
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("replica URL %q names host %q; a file replica is a local folder: file:///absolute/folder", Redact(raw), u.Host)
		}
		if u.Path == "" || !filepath.IsAbs(filepath.FromSlash(u.Path)) {
			return nil, fmt.Errorf("replica URL %q needs an absolute folder: file:///absolute/folder", Redact(raw))
		}
		return file.NewReplicaClient(filepath.Clean(filepath.FromSlash(u.Path))), nil
	case "s3":
		if u.Host == "" {
			return nil, fmt.Errorf("replica URL %q names no bucket: s3://bucket/path", Redact(raw))
		}
		if os.Getenv(envCABundle) != "" {
			// The AWS SDK would need a transport Litestream does not give it
			// (benbjohnson/litestream#639): every request would fail.
			return nil, fmt.Errorf("%s is set, and Litestream's S3 client cannot use it; unset it for this command "+
				"(to trust a private certificate authority, name its PEM file in SSL_CERT_FILE instead)", envCABundle)
		}
		c, err := ls.NewReplicaClientFromURL(raw)
		if err != nil {
			return nil, fmt.Errorf("replica URL %q: %v", Redact(raw), err)
		}
		return c, nil
	}
	return nil, fmt.Errorf("replica URL scheme %q is not supported; use one of %s:// (for Google Cloud Storage or Azure, use their S3-compatible endpoint or the litestream command beside the server)",
		u.Scheme, strings.Join(Schemes, "://, "))
}

// Redact returns raw without user information or query parameters, which
// may carry secrets (an SSE customer key, a password), for logs and errors.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.ForceQuery = false
	u.Fragment = ""
	return u.String()
}

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
