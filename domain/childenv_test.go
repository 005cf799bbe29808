package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestChildEnv(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/a", "LANG=C.UTF-8", "LC_ALL=C", "TMPDIR=/tmp", "SystemRoot=C:\\Windows",
		"MCP_SQLITE_AUTH_TOKEN=secret", "MCP_SQLITE_REPLICATE=s3://k:s@b/p", "GITHUB_TOKEN=x", "AWS_SECRET_ACCESS_KEY=k",
		"https_proxy=http://p", "LITESTREAM_ACCESS_KEY_ID=a", "=C:=C:\\dir", "junk", "PATHX=1",
	}
	for _, tc := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"the base only", nil, []string{"PATH=/usr/bin", "HOME=/home/a", "LANG=C.UTF-8", "LC_ALL=C", "TMPDIR=/tmp", "SystemRoot=C:\\Windows"}},
		{"extra names and prefixes", []string{"AWS_*", "LITESTREAM_*", "HTTPS_PROXY"}, []string{"PATH=/usr/bin", "HOME=/home/a", "LANG=C.UTF-8",
			"LC_ALL=C", "TMPDIR=/tmp", "SystemRoot=C:\\Windows", "AWS_SECRET_ACCESS_KEY=k", "https_proxy=http://p", "LITESTREAM_ACCESS_KEY_ID=a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, domain.ChildEnv(environ, tc.extra...))
		})
	}
}
