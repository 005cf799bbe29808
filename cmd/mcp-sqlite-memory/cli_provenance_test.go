package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCallRecordsItsProvenanceAndRetractionsSurviveAnImport: an event the
// call subcommand appends records "cli", "call append_event" beside the
// chain (a reference-made file still verifies); an export carries the
// provenance and the retraction, an import restores both, and the export
// of the import is byte-identical.
func TestCallRecordsItsProvenanceAndRetractionsSurviveAnImport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := referenceDB(t, dir) // 20 events
	call := func(tool, args string) string {
		t.Helper()
		code, out, stderr := runCLI(t, "call", "--db", db, tool, args)
		require.Equal(t, 0, code, stderr)
		return out
	}
	call("append_event", `{"content": "from the command line"}`)
	assert.Contains(t, call("retract_event", `{"id": 21, "reason": "typed into the wrong file"}`), "ok: event 21 retracted by event 22")
	assert.Equal(t, "event_id,transport,client,command\n21,cli,,call append_event\n22,cli,,call retract_event\n# 2 rows\n",
		call("read_query", `{"query": "SELECT event_id, transport, client, command FROM memory_provenance ORDER BY event_id"}`))
	code, out, stderr := runCLI(t, "verify", "--db", db)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "22 events")
	assert.Contains(t, call("get_resume_context", `{}`), "1 retracted left out")

	code, first, stderr := runCLI(t, "export", "--db", db)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, first, "\n"+`{"type":"provenance","event_id":22,"transport":"cli","client":"","client_version":"","http_session":"","command":"call retract_event"}`+"\n")
	assert.Contains(t, first, `{"type":"end","checkpoints":1,"events":22,"signatures":0,"provenances":2,"head_id":22,`)
	exported := filepath.Join(dir, "export.jsonl")
	require.NoError(t, os.WriteFile(exported, []byte(first), 0o600))
	copyDB := filepath.Join(dir, "copy.db")
	code, _, stderr = runCLI(t, "import", "--to", copyDB, "--from", exported)
	require.Equal(t, 0, code, stderr)
	code, second, stderr := runCLI(t, "export", "--db", copyDB)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, first, second, "export of the import is byte-identical")

	code, out, stderr = runCLI(t, "call", "--db", copyDB, "read_query", `{"query": "SELECT * FROM memory_retractions"}`)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "event_id,retraction_id,reason\n21,22,typed into the wrong file\n# 1 rows\n", out)
	code, out, stderr = runCLI(t, "call", "--db", copyDB, "read_query", `{"query": "SELECT event_id, transport, client, command FROM memory_provenance WHERE event_id <= 22 ORDER BY event_id"}`)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "event_id,transport,client,command\n21,cli,,call append_event\n22,cli,,call retract_event\n# 2 rows\n", out, "restored, NULLs included")
	code, out, stderr = runCLI(t, "resume", "--db", copyDB)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "1 retracted left out")
	assert.NotContains(t, out, "from the command line")
}
