package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// referenceDB makes a database as the reference leaves it: the 20 events
// of the reference's hash vectors (hashed by an independent Python
// implementation) and one checkpoint without a seal.
func referenceDB(t *testing.T, dir string) string {
	t.Helper()
	raw, err := os.ReadFile("../../domain/testdata/reference-chain.json")
	require.NoError(t, err)
	var ref struct {
		Events []exportEvent `json:"events"`
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	require.NoError(t, d.Decode(&ref)) // payload_hex and the rest are ignored
	require.Len(t, ref.Events, 20)
	schema, err := os.ReadFile("../../test/interop/testdata/reference-schema.sql")
	require.NoError(t, err)
	path := filepath.Join(dir, "reference.db")
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path}).String())
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(string(schema))
	require.NoError(t, err)
	for _, e := range ref.Events {
		_, err := db.Exec("INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
			e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash)
		require.NoError(t, err)
	}
	last := ref.Events[len(ref.Events)-1]
	_, err = db.Exec("INSERT INTO memory_checkpoints (ts, session, summary, last_event_id, head_hash) VALUES (?, ?, ?, ?, ?)",
		last.TS, last.Session, "the reference's checkpoint", last.ID, last.Hash)
	require.NoError(t, err)
	return path
}

func writeKey(t *testing.T, dir, name string, b byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte{b}, 32), 0o600))
	return p
}

// TestExportImportRoundTrip: a reference-made chain, continued by this
// server with a key (seals, a marker, signatures), exports, imports into
// a new file with every hash verified, and exports again to the same
// bytes; the new file verifies, signatures included.
func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := referenceDB(t, dir)
	key := writeKey(t, dir, "key", 5)

	code, out, stderr := runCLI(t, "export", "--db", db)
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, `{"format":"mcp-sqlite-memory-export","version":1}`+"\n"), out[:80])

	for _, c := range []string{`{"content": "after the reference"}`, `{"summary": "state: continued <&> \"quoted\""}`} {
		tool := "append_event"
		if strings.Contains(c, "summary") {
			tool = "checkpoint"
		}
		code, _, stderr = runCLI(t, "call", "--db", db, "--chain-key-file", key, tool, c)
		require.Equal(t, 0, code, stderr)
	}
	code, first, stderr := runCLI(t, "export", "--db", db)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
	assert.Equal(t, `{"type":"end","checkpoints":2,"events":23,"signatures":2,"provenances":3,"head_id":23,"head_hash":"`, lines[len(lines)-1][:99])

	exported := filepath.Join(dir, "export.jsonl")
	require.NoError(t, os.WriteFile(exported, []byte(first), 0o600))
	copyDB := filepath.Join(dir, "sub", "copy.db")
	code, out, stderr = runCLI(t, "import", "--to", copyDB, "--from", exported, "--chain-key-file", key)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "imported 23 events, 2 checkpoints and 2 head signatures")

	code, second, stderr := runCLI(t, "export", "--db", copyDB)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, first, second, "export of the import is byte-identical")

	code, out, stderr = runCLI(t, "verify", "--db", copyDB, "--chain-key-file", key)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "head signed (event #23) by key ")
	assert.Contains(t, out, ", verified")

	// An existing --to is refused, and so is a wrong key.
	code, _, stderr = runCLI(t, "import", "--to", copyDB, "--from", exported)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "exists")
	other := filepath.Join(dir, "other.db")
	code, _, stderr = runCLI(t, "import", "--to", other, "--from", exported, "--chain-key-file", writeKey(t, dir, "wrong", 6))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "do not verify with --chain-key-file")
	assertNoFile(t, other)
}

// lineOf is the index of the first line holding s.
func lineOf(t *testing.T, lines []string, s string) int {
	t.Helper()
	for i, l := range lines {
		if strings.Contains(l, s) {
			return i
		}
	}
	t.Fatalf("no line holds %s", s)
	return 0
}

func assertNoFile(t *testing.T, path string) {
	t.Helper()
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		_, err := os.Lstat(p)
		assert.True(t, os.IsNotExist(err), "%s is left behind", p)
	}
}

// TestImportRefusesWhatDoesNotVerify: an edited event (even with its own
// hash recomputed), a cut file, a line out of order, an unknown field, a
// signature that names a wrong hash, or another version leave no file.
func TestImportRefusesWhatDoesNotVerify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := referenceDB(t, dir)
	code, _, stderr := runCLI(t, "call", "--db", db, "--chain-key-file", writeKey(t, dir, "key", 5), "append_event", `{"content": "signed"}`)
	require.Equal(t, 0, code, stderr)
	code, good, stderr := runCLI(t, "export", "--db", db)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSuffix(good, "\n"), "\n")
	edit := func(i int, from, to string) string {
		l := append([]string(nil), lines...)
		require.Contains(t, l[i], from)
		l[i] = strings.Replace(l[i], from, to, 1)
		return strings.Join(l, "\n") + "\n"
	}
	var ev exportEvent
	require.NoError(t, json.Unmarshal([]byte(lines[3]), &ev))
	e := domain.Event{ID: ev.ID, TS: ev.TS, Session: ev.Session, Kind: ev.Kind, Content: "forged", PrevHash: ev.PrevHash}
	rehashed := edit(3, ev.Hash, e.ComputeHash())
	rehashed = strings.Replace(rehashed, `"content":"`+ev.Content+`"`, `"content":"forged"`, 1)
	cases := map[string]string{
		"edited content":         edit(3, `"content":"`, `"content":"x`),
		"one event rehashed":     rehashed,
		"cut":                    strings.Join(lines[:len(lines)-1], "\n") + "\n",
		"out of order":           strings.Join(append([]string{lines[0], lines[2], lines[1]}, lines[3:]...), "\n") + "\n",
		"unknown field":          edit(2, `"type":"event"`, `"type":"event","extra":1`),
		"wrong signature":        edit(lineOf(t, lines, `"type":"signature"`), `"head_hash":"`, `"head_hash":"0`),
		"provenance of no event": edit(lineOf(t, lines, `"type":"provenance"`), `"event_id":21`, `"event_id":99`),
		"provenance uncounted":   edit(len(lines)-1, `"provenances":1,`, ``),
		"other version":          edit(0, `"version":1`, `"version":2`),
		"empty":                  "",
		"after the end":          good + good,
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(t.TempDir(), "in.jsonl")
			require.NoError(t, os.WriteFile(src, []byte(text), 0o600))
			to := filepath.Join(t.TempDir(), "new.db")
			code, _, stderr := runCLI(t, "import", "--to", to, "--from", src)
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, "nothing was written")
			assert.NotContains(t, stderr, "SQLite error", "the reason is the export's, not the database's")
			assertNoFile(t, to)
		})
	}
}
