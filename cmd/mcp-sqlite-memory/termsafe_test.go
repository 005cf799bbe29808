package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTerminalWriterEscapesEveryWriter(t *testing.T) {
	t.Parallel()
	const payload = "\x1b[2K\r\u009b\u202e"
	var buf bytes.Buffer
	w := terminalWriter(&buf)
	assert.Equal(t, w, terminalWriter(w), "wrapped once")
	n, err := fmt.Fprintf(w, "cell %s\n", payload)
	require.NoError(t, err)
	assert.Equal(t, len("cell \n")+len(payload), n, "the caller's byte count, not the escaped one")
	slog.New(slog.NewTextHandler(w, nil)).Warn("agent said "+payload, "query", payload)
	require.NoError(t, printJSON(w, map[string]string{"text": payload}))
	assert.Equal(t, `cell \u001b[2K\u000d\u009b\u202e`+"\n", buf.String()[:bytes.IndexByte(buf.Bytes(), '\n')+1])
	for _, c := range []string{"\x1b", "\r", "\u009b", "\u202e"} {
		assert.NotContains(t, buf.String(), c)
	}
}
