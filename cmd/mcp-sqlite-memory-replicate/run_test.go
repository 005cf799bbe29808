package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCapture runs the sidecar in-process and returns its status, control
// lines and stderr.
func runCapture(t *testing.T, stdin string, args ...string) (int, []control, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	var cs []control
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		var c control
		require.NoError(t, json.Unmarshal([]byte(line), &c), "stdout holds only control lines: %q", line)
		cs = append(cs, c)
	}
	return code, cs, errOut.String()
}

// TestSidecarRefusals: what it was given wrong is status 2 with one control
// line marked usage (the server turns it into its own usage error); -control
// keeps the reason off stderr, where the server prints it itself.
func TestSidecarRefusals(t *testing.T) {
	t.Setenv(envURL, "")
	t.Setenv("AWS_CA_BUNDLE", "")
	code, cs, _ := runCapture(t, "")
	assert.Equal(t, 2, code)
	assert.Empty(t, cs)

	for _, args := range [][]string{
		{"run", "--db", "x.db"}, // no URL
		{"run", "-control", "--url", "gopher://h/x", "--db", "x.db"}, // scheme
		{"run", "-control", "--url", "s3://b/p?concurrency=many"},    // Litestream's own check
		{"restore", "-control", "--url", "file:///tmp/r"},            // no --to
		{"restore", "-control", "--url", "file:///tmp/r", "--to", "x", "--at", "yesterday"},
	} {
		code, cs, stderr := runCapture(t, "", args...)
		assert.Equal(t, 2, code, "%v", args)
		require.Len(t, cs, 1, "%v", args)
		assert.True(t, cs[0].Usage, "%v", args)
		assert.NotEmpty(t, cs[0].Error, "%v", args)
		if args[1] == "-control" {
			assert.Empty(t, stderr, "%v", args)
		}
	}
}

// TestSidecarReplicatesUntilStdinEnds: run says ready once the lock file
// is made, replicates, and on the end of its stdin syncs once more and
// exits 0, its replica then holding the database.
func TestSidecarReplicatesUntilStdinEnds(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "mem.db")
	require.NoError(t, os.WriteFile(db, nil, 0o644))
	replica := filepath.Join(dir, "replica")
	code, cs, stderr := runCapture(t, "", "run", "-control", "--url", (&url.URL{Scheme: "file", Path: filepath.ToSlash(replica)}).String(), "--db", db, "--sync-interval", "50ms")
	require.Equal(t, 0, code, stderr)
	require.Len(t, cs, 1)
	assert.True(t, cs[0].Ready)
	assert.Contains(t, stderr, "replicating with Litestream")
	assert.Contains(t, stderr, "replica up to date")
	_, err := os.Stat(db + ".replicate.lock")
	assert.NoError(t, err, "the lock file beside the database")
}
