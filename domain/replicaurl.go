package domain

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// ReplicaSchemes are the replica URL schemes replication supports: a local
// (or mounted) folder, and S3 or any S3-compatible store.
var ReplicaSchemes = []string{"file", "s3"}

// EnvCABundle is the AWS SDK's variable for a private certificate
// authority, which Litestream's S3 client cannot use.
const EnvCABundle = "AWS_CA_BUNDLE"

// CheckReplicaURL reports, in one sentence that says what to write instead,
// why raw cannot be used as a replica URL. It is the part of the check that
// needs no replication library, so the server refuses a bad --replicate at
// once without linking one; getenv reads the environment (os.Getenv). The
// replication adapter runs it first, then its library's own parsing.
func CheckReplicaURL(raw string, getenv func(string) string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return fmt.Errorf("replica URL %q is not a URL; write file:///absolute/folder or s3://bucket/path", RedactURL(raw))
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return fmt.Errorf("replica URL %q names host %q; a file replica is a local folder: file:///absolute/folder", RedactURL(raw), u.Host)
		}
		if u.Path == "" || !filepath.IsAbs(filepath.FromSlash(u.Path)) {
			return fmt.Errorf("replica URL %q needs an absolute folder: file:///absolute/folder", RedactURL(raw))
		}
		return nil
	case "s3":
		if u.Host == "" {
			return fmt.Errorf("replica URL %q names no bucket: s3://bucket/path", RedactURL(raw))
		}
		if getenv(EnvCABundle) != "" {
			// The AWS SDK would need a transport Litestream does not give it
			// (benbjohnson/litestream#639): every request would fail.
			return fmt.Errorf("%s is set, and Litestream's S3 client cannot use it; unset it for this command "+
				"(to trust a private certificate authority, name its PEM file in SSL_CERT_FILE instead)", EnvCABundle)
		}
		return nil
	}
	return fmt.Errorf("replica URL scheme %q is not supported; use one of %s:// (for Google Cloud Storage or Azure, use their S3-compatible endpoint or the litestream command beside the server)",
		u.Scheme, strings.Join(ReplicaSchemes, "://, "))
}

// RedactURL returns raw without user information or query parameters,
// which may carry secrets (an SSE customer key, a password), for logs and
// errors.
func RedactURL(raw string) string {
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
