package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The documented example key pair of AWS: not live, the real format.
const (
	exampleAccessKeyID = "AKIAIOSFODNN7EXAMPLE"
	exampleSecretKey   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// TestAppendEventRedactsSecrets: the secret is gone from the stored event
// before it is hashed, the answer and the audit row name its kind and
// never its value.
func TestAppendEventRedactsSecrets(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	out, err := text(w.svc.AppendEvent(context.Background(), domain.AppendEventRequest{Content: "deploy creds: aws_access_key_id=" + exampleAccessKeyID + " aws_secret_access_key=" + exampleSecretKey, Kind: "note"}))
	require.NoError(t, err)
	require.Len(t, w.db.Memory.Chain, 1)
	ev := w.db.Memory.Chain[0]
	assert.Equal(t, "deploy creds: aws_access_key_id=[redacted: aws-access-key-id] aws_secret_access_key=[redacted: aws-secret-access-key]", ev.Content)
	assert.Equal(t, ev.ComputeHash(), ev.Hash, "the hash covers the redacted text")
	assert.Contains(t, out, "\nredacted 2 secrets from the content before storing it: aws-access-key-id, aws-secret-access-key")
	e := w.onlyEntry(t)
	assert.Contains(t, e.Detail, `"redacted": ["aws-access-key-id", "aws-secret-access-key"]`)
	for _, s := range []string{out, e.Detail, ev.Content} {
		assert.NotContains(t, s, exampleAccessKeyID)
		assert.NotContains(t, s, exampleSecretKey)
	}
}

// TestCheckpointRedactsSecrets does the same for a checkpoint's summary.
func TestCheckpointRedactsSecrets(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	appendAll(t, w, "started")
	out, err := text(w.svc.Checkpoint(context.Background(), domain.CheckpointRequest{Summary: "state: the db url is postgres://app:s3cr3t-Pa55@db:5432/app"}))
	require.NoError(t, err)
	require.Len(t, w.db.Memory.Checkpoints, 1)
	assert.Equal(t, "state: the db url is postgres://app:[redacted: url-password]@db:5432/app", w.db.Memory.Checkpoints[0].Summary)
	assert.Contains(t, out, "\nredacted 1 secret from the summary before storing it: url-password")
	assert.NotContains(t, out, "s3cr3t")
}

// TestRedactionOff: --redact-secrets=false stores the text as given, and
// text without secrets is never changed nor annotated.
func TestRedactionOff(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.svc = app.New(w.deps(), app.Options{Limits: w.limits, Session: "20261201T100000Z-test", KeepSecrets: true})
	out, err := text(w.svc.AppendEvent(context.Background(), domain.AppendEventRequest{Content: "key " + exampleAccessKeyID, Kind: "note"}))
	require.NoError(t, err)
	assert.Equal(t, "key "+exampleAccessKeyID, w.db.Memory.Chain[0].Content)
	assert.NotContains(t, out, "redacted")

	w = newWorld(t)
	out, err = text(w.svc.AppendEvent(context.Background(), domain.AppendEventRequest{Content: "commit 9fceb02d0ae598e95dc970b74767f19372d61af8, run 550e8400-e29b-41d4-a716-446655440000", Kind: "note"}))
	require.NoError(t, err)
	assert.Equal(t, "commit 9fceb02d0ae598e95dc970b74767f19372d61af8, run 550e8400-e29b-41d4-a716-446655440000", w.db.Memory.Chain[0].Content)
	assert.NotContains(t, out, "redacted")
	assert.NotContains(t, w.onlyEntry(t).Detail, "redacted")
}
