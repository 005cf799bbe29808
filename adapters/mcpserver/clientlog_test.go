package mcpserver

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClientLogScrubsSecretsAndReadOnlyPaths(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, readOnly, writable string
	}{
		{"snapshot written", "snapshot written", "snapshot written"},
		{"/home/me/agent/memory.db", "memory.db", "/home/me/agent/memory.db"},
		{"cannot open /srv/x.db: permission denied", "cannot open x.db: permission denied", "cannot open /srv/x.db: permission denied"},
		{`path="C:\Users\me\m.db"`, `path="m.db"`, `path="C:\Users\me\m.db"`},
		{"read/write and 1/2 stay", "read/write and 1/2 stay", "read/write and 1/2 stay"},
	} {
		assert.Equal(t, c.readOnly, scrubText(c.in, true), c.in)
		assert.Equal(t, c.writable, scrubText(c.in, false), c.in)
	}
	assert.Empty(t, scrubAttr(slog.String("auth_token", "s3cret"), false).Key)
	assert.Empty(t, scrubAttr(slog.String("Authorization", "Bearer x"), false).Key)
	assert.Equal(t, "x.db: locked", scrubAttr(slog.Any("err", errors.New("/a/b/x.db: locked")), true).Value.String())
}
