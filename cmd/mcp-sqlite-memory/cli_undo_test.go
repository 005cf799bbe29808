package main

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
)

func TestUndoConfirmTakesOnlyYes(t *testing.T) {
	t.Parallel()
	for answer, want := range map[string]bool{"y\n": true, "YES\n": true, " yes ": true, "n\n": false, "\n": false, "": false, "yess\n": false} {
		var asked strings.Builder
		got, err := confirm(strings.NewReader(answer), &asked, "restore? ")
		require.NoError(t, err)
		assert.Equal(t, want, got, "%q", answer)
		assert.Equal(t, "restore? ", asked.String())
	}
	_, err := confirm(strings.NewReader("y\n"), failingWriter{}, "restore? ")
	assert.Error(t, err, "a question that cannot be shown is no yes")
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestUndoParseCallID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"42": 42, "#42": 42} {
		got, err := parseCallID([]string{in})
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	got, err := parseCallID(nil)
	require.NoError(t, err)
	assert.Equal(t, int64(0), got, "no CALL: the latest")
	for _, bad := range []string{"0", "-1", "x", "#", "1.5"} {
		_, err := parseCallID([]string{bad})
		var ue *settings.UsageError
		assert.ErrorAs(t, err, &ue, bad)
	}
}
