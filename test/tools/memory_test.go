package tools_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"

	// The tamper tests open the file with a raw database/sql connection, as
	// an attacker with file access would, bypassing the server entirely.
	_ "modernc.org/sqlite"
)

// memSession is the session id the harness gives every server.
const memSession = "20260913T101100Z-test"

// memClock is a settable clock, so each step of a flow has its own ts.
type memClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *memClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// set moves the clock to ts, spelled as domain.TSLayout.
func (c *memClock) set(t *testing.T, ts string) {
	t.Helper()
	v, err := time.Parse(domain.TSLayout, ts)
	require.NoError(t, err)
	c.mu.Lock()
	c.t = v
	c.mu.Unlock()
}

// newMemEnv starts a server on a fresh file with a clock at 10:11:12Z and,
// when maxResultBytes > 0, that byte cap.
func newMemEnv(t *testing.T, maxResultBytes int) (*harness.Env, *memClock) {
	t.Helper()
	clock := &memClock{}
	clock.set(t, "2026-09-13T10:11:12Z")
	limits := domain.DefaultLimits()
	if maxResultBytes > 0 {
		limits.MaxResultBytes = maxResultBytes
	}
	return harness.New(t, harness.Config{Clock: clock, Limits: limits}), clock
}

// memEvent computes the event the server should store, to know its hash.
func memEvent(t *testing.T, prev domain.Event, ts, kind, content string) domain.Event {
	t.Helper()
	head := prev.Hash
	if prev.ID == 0 {
		head = domain.Genesis
	}
	e, err := domain.NewEvent(prev.ID, head, ts, memSession, kind, content)
	require.NoError(t, err)
	return e
}

// memAppended is append_event's answer for e.
func memAppended(e domain.Event) string {
	return fmt.Sprintf("ok: event %d appended (hash %s...)", e.ID, e.Hash[:12])
}

// memAppendNotes appends n notes "<prefix> 1" ... "<prefix> n".
func memAppendNotes(t *testing.T, env *harness.Env, prefix string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		env.MustCall(t, "append_event", map[string]any{"content": fmt.Sprintf("%s %d", prefix, i)})
	}
}

// memTamper drops the append-only triggers through a raw connection and
// runs stmts, while the server keeps the file open.
func memTamper(t *testing.T, path string, stmts ...string) {
	t.Helper()
	u := url.URL{Scheme: "file", Path: path, RawQuery: "_pragma=busy_timeout(5000)"}
	db, err := sql.Open("sqlite", u.String())
	require.NoError(t, err)
	defer db.Close()
	for _, q := range append([]string{
		"DROP TRIGGER IF EXISTS memory_events_no_update",
		"DROP TRIGGER IF EXISTS memory_events_no_delete",
		"DROP TRIGGER IF EXISTS memory_checkpoints_no_update",
	}, stmts...) {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
}

func TestMemoryReferenceFlow(t *testing.T) {
	t.Parallel()
	env, clock := newMemEnv(t, 0)
	e1 := memEvent(t, domain.Event{}, "2026-09-13T10:11:12Z", "note", "first event")
	assert.Equal(t, memAppended(e1), env.MustCall(t, "append_event", map[string]any{"content": "first event"}))

	clock.set(t, "2026-09-13T10:11:13Z")
	e2 := memEvent(t, e1, "2026-09-13T10:11:13Z", "decision", "second event")
	assert.Equal(t, memAppended(e2), env.MustCall(t, "append_event", map[string]any{"content": "second event", "kind": "decision"}))

	clock.set(t, "2026-09-13T10:11:14Z")
	assert.Equal(t, "ok: checkpoint 1 written at event 3", env.MustCall(t, "checkpoint", map[string]any{"summary": "two events in, all good"}))

	// The first checkpoint is anchored to a marker after the head, and
	// sealed into the chain by the event right after it.
	marker := memEvent(t, e2, "2026-09-13T10:11:14Z", domain.SealKind, domain.SealMarkerContent)
	seal, err := domain.NewSeal(domain.Checkpoint{ID: 1, TS: "2026-09-13T10:11:14Z", Session: memSession,
		Summary: "two events in, all good", LastEventID: 3, HeadHash: marker.Hash})
	require.NoError(t, err)
	assert.Equal(t, "kind,content,hash\ncheckpoint,"+marker.Content+","+marker.Hash+"\ncheckpoint,"+seal.Content+","+seal.Hash+"\n# 2 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT kind, content, hash FROM memory_events WHERE id >= 3 ORDER BY id"}))

	clock.set(t, "2026-09-13T10:11:15Z")
	e5 := memEvent(t, seal, "2026-09-13T10:11:15Z", "note", "after checkpoint")
	assert.Equal(t, memAppended(e5), env.MustCall(t, "append_event", map[string]any{"content": "after checkpoint"}))

	assert.Equal(t, "# checkpoint 1 | 2026-09-13T10:11:14Z | session "+memSession+" | at event 3\n"+
		"two events in, all good\n"+
		"# sealed in the chain by event 4: the chain's hashes cover this summary\n\n"+
		"# 1 events since checkpoint | chain ok (5 events)\n"+
		"id,ts,kind,content\n"+
		"5,2026-09-13T10:11:15Z,note,after checkpoint",
		env.MustCall(t, "get_resume_context", nil))
	assert.Equal(t, `{"ok": true, "events": 5, "head_id": 5, "head_hash": "`+e5.Hash+`", "checkpoints": 1, "sealed": 1}`, env.MustCall(t, "verify_chain", nil))

	assert.Equal(t, "tool,rows,detail\n"+
		`append_event,1,"{""event_id"": 1, ""kind"": ""note""}"`+"\n"+
		`append_event,1,"{""event_id"": 2, ""kind"": ""decision""}"`+"\n"+
		`checkpoint,1,"{""checkpoint_id"": 1, ""last_event_id"": 3}"`+"\n"+
		`read_query,2,"{""limit"": 100, ""more_rows"": false}"`+"\n"+
		`append_event,1,"{""event_id"": 5, ""kind"": ""note""}"`+"\n"+
		`get_resume_context,1,"{""checkpoint_id"": 1, ""chain_ok"": true, ""excluded"": [], ""dropped"": 0}"`+"\n"+
		`verify_chain,5,"{""ok"": true}"`+"\n# 7 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT tool, rows, detail FROM query_log ORDER BY id"}))
}

func TestMemoryOnEmptyDatabase(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	assert.Equal(t, "# no checkpoint yet\n\n# 0 events | chain ok (0 events)", env.MustCall(t, "get_resume_context", nil))
	assert.Equal(t, `{"ok": true, "events": 0, "head_id": 0, "head_hash": "`+domain.Genesis+`"}`, env.MustCall(t, "verify_chain", nil))
	assert.Equal(t, "ok: checkpoint 1 written at event 1", env.MustCall(t, "checkpoint", map[string]any{"summary": "starting out"}))
	assert.Equal(t, "# checkpoint 1 | 2026-09-13T10:11:12Z | session "+memSession+" | at event 1\nstarting out\n"+
		"# sealed in the chain by event 2: the chain's hashes cover this summary\n\n"+
		"# 0 events since checkpoint | chain ok (2 events)", env.MustCall(t, "get_resume_context", nil),
		"a checkpoint on the empty chain is anchored to the marker, event 1: no warning")
}

func TestAppendEventNormalisesLikeTheReference(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	cases := []struct {
		name        string
		args        map[string]any
		kind, saved string
	}{
		{"kind defaults to note", map[string]any{"content": "a"}, "note", "a"},
		{"empty kind becomes note", map[string]any{"content": "b", "kind": ""}, "note", "b"},
		{"blank kind becomes note", map[string]any{"content": "c", "kind": " \t"}, "note", "c"},
		{"kind and content are stripped", map[string]any{"content": "\n  d e \r\n", "kind": " decision "}, "decision", "d e"},
		{"python whitespace is stripped, inner kept", map[string]any{"content": "\x1c\u2028 f\u2028g \x1f\u3000", "kind": "\u00a0x"}, "x", "f\u2028g"},
	}
	for _, c := range cases {
		env.MustCall(t, "append_event", c.args)
	}
	var want strings.Builder
	want.WriteString("kind,content,detail\n")
	for i, c := range cases {
		fmt.Fprintf(&want, "%s,%s,\"{\"\"event_id\"\": %d, \"\"kind\"\": \"\"%s\"\"}\"\n", c.kind, c.saved, i+1, c.kind)
	}
	fmt.Fprintf(&want, "# %d rows", len(cases))
	assert.Equal(t, want.String(), env.MustCall(t, "read_query", map[string]any{"query": "SELECT e.kind, e.content, l.detail " +
		"FROM memory_events e JOIN query_log l ON l.tool = 'append_event' AND l.detail ->> 'event_id' = e.id ORDER BY e.id"}),
		"audit detail records the kind as stored (docs/decisions.md#fixes-over-the-reference, item 11)")

	assert.Equal(t, "content must not be empty", env.MustFail(t, "append_event", map[string]any{"content": " \x1f\n"}))
	assert.Equal(t, "summary must not be empty", env.MustFail(t, "checkpoint", map[string]any{"summary": "\u2029"}))
	assert.Equal(t, "ok,error\n0,summary must not be empty\n0,content must not be empty\n# 2 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT ok, error FROM query_log WHERE ok = 0 ORDER BY id DESC"}))
	assert.True(t, strings.HasPrefix(env.MustCall(t, "verify_chain", nil), `{"ok": true, "events": 5,`), "failed calls append nothing")
}

func TestResumeExcludesKindsAndCapsEvents(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 0)
	for _, e := range [][2]string{{"note", "n1"}, {"debug", "d1"}, {"decision", "x1"}, {"debug", "d2"}, {"note", "n2"}, {"Debug", "D3"}} {
		env.MustCall(t, "append_event", map[string]any{"kind": e[0], "content": e[1]})
	}
	row := func(id int, kind, content string) string {
		return fmt.Sprintf("\n%d,2026-09-13T10:11:12Z,%s,%s", id, kind, content)
	}
	const head = "# no checkpoint yet\n\n# "
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"items are stripped, empty ones dropped", map[string]any{"exclude_kinds": " debug , ,note,"},
			head + "2 events | chain ok (6 events)\nid,ts,kind,content" + row(3, "decision", "x1") + row(6, "Debug", "D3")},
		{"nothing excluded", map[string]any{"exclude_kinds": " , ", "max_events": 2},
			head + "6 events, showing the most recent 2 | chain ok (6 events)\nid,ts,kind,content" + row(5, "note", "n2") + row(6, "Debug", "D3")},
		{"max_events counts after excluding", map[string]any{"exclude_kinds": "debug", "max_events": 2},
			head + "4 events, showing the most recent 2 | chain ok (6 events)\nid,ts,kind,content" + row(5, "note", "n2") + row(6, "Debug", "D3")},
		{"every kind excluded", map[string]any{"exclude_kinds": "note,debug,decision,Debug"},
			head + "0 events | chain ok (6 events)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, env.MustCall(t, "get_resume_context", c.args), c.name)
	}
	assert.Contains(t, env.MustCall(t, "read_query", map[string]any{"query": "SELECT detail FROM query_log WHERE tool = 'get_resume_context' ORDER BY id LIMIT 1"}),
		`""excluded"": [""debug"", ""note""]`)
}

func TestResumeDropsOldestEventsToFitTheByteCap(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 150) // the resume context may take 2 x 150 bytes
	for i := 1; i <= 6; i++ {
		env.MustCall(t, "append_event", map[string]any{"content": fmt.Sprintf("event %d: %s", i, strings.Repeat("x", 30))})
	}
	row := func(id int) string {
		return fmt.Sprintf("\n%d,2026-09-13T10:11:12Z,note,event %d: %s", id, id, strings.Repeat("x", 30))
	}
	want := "# no checkpoint yet\n\n# 6 events, showing the most recent 1 | chain ok (6 events)\nid,ts,kind,content" +
		row(6) + "\n# 5 older events dropped to fit 300 bytes; read them with read_query on memory_events"
	out := env.MustCall(t, "get_resume_context", nil)
	assert.Equal(t, want, out)
	assert.LessOrEqual(t, len(out), 300)
	assert.Equal(t, "count(*)\n5\n# 1 rows", env.MustCall(t, "read_query", map[string]any{"query": "SELECT count(*) FROM memory_events WHERE id < 6"}),
		"the dropped events are where the notice says")
	assert.Contains(t, env.MustCall(t, "read_query", map[string]any{"query": "SELECT detail FROM query_log WHERE tool = 'get_resume_context'"}),
		`""dropped"": 5`)
}

// These match the status line, the drop notice and the event lines of a
// resume text.
var (
	resumeStatusLine = regexp.MustCompile(`(?m)^# (\d+) events(?: since checkpoint)?(?:, showing the most recent (\d+))? \| chain ok`)
	resumeDropLine   = regexp.MustCompile(`(?m)^# (\d+) older events dropped to fit (\d+) bytes; read them with read_query on memory_events$`)
	resumeCSVRow     = regexp.MustCompile(`(?m)^(\d+),2026-`)
)

func TestResumeNeverExceedsTheCapAndCountsWhatItShows(t *testing.T) {
	t.Parallel()
	for _, maxBytes := range []int{100, 128, 160, 200, 257, 400, 1000, 4000} {
		t.Run(strconv.Itoa(maxBytes), func(t *testing.T) {
			t.Parallel()
			env, _ := newMemEnv(t, maxBytes)
			const n = 40
			for i := 1; i <= n; i++ {
				env.MustCall(t, "append_event", map[string]any{"content": fmt.Sprintf("e%d %s", i, strings.Repeat("é", i%13*5))})
			}
			for _, maxEvents := range []int{1, 7, 50} {
				out := env.MustCall(t, "get_resume_context", map[string]any{"max_events": maxEvents})
				assert.LessOrEqual(t, len(out), 2*maxBytes, out)
				assert.True(t, utf8.ValidString(out))
				var ids []int
				for _, m := range resumeCSVRow.FindAllStringSubmatch(out, -1) {
					id, _ := strconv.Atoi(m[1])
					ids = append(ids, id)
				}
				loaded := min(maxEvents, n)
				for i, id := range ids {
					assert.Equal(t, n-len(ids)+1+i, id, "the newest events, oldest first, without holes")
				}
				st := resumeStatusLine.FindStringSubmatch(out)
				require.NotNil(t, st, out)
				assert.Equal(t, strconv.Itoa(n), st[1])
				if len(ids) < n {
					assert.Equal(t, strconv.Itoa(len(ids)), st[2], "'showing' counts the events really shown (docs/decisions.md#fixes-over-the-reference, item 12)")
				}
				dropped := 0
				if d := resumeDropLine.FindStringSubmatch(out); d != nil {
					dropped, _ = strconv.Atoi(d[1])
					assert.Equal(t, strconv.Itoa(2*maxBytes), d[2])
				}
				assert.Equal(t, loaded, len(ids)+dropped, "max_events=%d: shown + dropped = loaded\n%s", maxEvents, out)
			}
		})
	}
}

func TestResumeCutsALongCheckpointSummary(t *testing.T) {
	t.Parallel()
	env, _ := newMemEnv(t, 300) // the resume context may take 600 bytes
	// 1053 code points, 1353 bytes.
	summary := strings.Repeat("résumé ", 150) + "END"
	env.MustCall(t, "checkpoint", map[string]any{"summary": summary})
	memAppendNotes(t, env, "after", 3)
	out := env.MustCall(t, "get_resume_context", nil)
	assert.LessOrEqual(t, len(out), 600, out)
	lines := strings.Split(out, "\n")
	require.Len(t, lines, 10, out)
	assert.Equal(t, "# checkpoint 1 | 2026-09-13T10:11:12Z | session "+memSession+" | at event 1", lines[0], "anchored to the marker")
	shown := lines[1]
	assert.True(t, strings.HasPrefix(summary, shown) && utf8.ValidString(shown) && len(shown) < len(summary), "a prefix cut at a code point: %q", shown)
	assert.Equal(t, fmt.Sprintf("# checkpoint summary cut to %d of %d chars; read it with read_query on memory_checkpoints (id 1)",
		utf8.RuneCountInString(shown), utf8.RuneCountInString(summary)), lines[2])
	assert.Equal(t, []string{"# sealed in the chain by event 2: the chain's hashes cover this summary", "",
		"# 3 events since checkpoint, showing the most recent 2 | chain ok (5 events)", "id,ts,kind,content",
		"4,2026-09-13T10:11:12Z,note,after 2", "5,2026-09-13T10:11:12Z,note,after 3",
		"# 1 older events dropped to fit 600 bytes; read them with read_query on memory_events"},
		lines[3:], "the summary does not starve the events")
	assert.Equal(t, "length(summary)\n1053\n# 1 rows",
		env.MustCall(t, "read_query", map[string]any{"query": "SELECT length(summary) FROM memory_checkpoints WHERE id = 1"}), "stored whole")
}
