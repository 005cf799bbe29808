package e2e_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/e2e"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// The web view's browser test: one headless Chromium (Debian's chromium)
// drives the ui command's pages beside a running server that wrote the
// fixture: hostile event contents and cell values, more events than a
// page, a destructive call to undo. WEBUI_SCREENSHOTS=DIR keeps a PNG of
// each page there (docs/webui holds the current ones); otherwise they go
// to the test's temporary folder.

// hostile is what an agent might write to make a page run its script.
const hostile = `<script>window.pwned=1;document.title="pwned"</script><img src=x onerror="window.pwned=2"> <b>bold</b>`

// hostileLink is a cell value shaped like a link that runs script.
const hostileLink = `<a href="javascript:window.pwned=3">click</a>`

// chromium finds the browser: absent, the test fails in CI and skips
// elsewhere.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed: CI installs it (apt-get install -y chromium in .ci/run)")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium)")
	return ""
}

// startUI runs the ui command on db and returns its login URL.
func startUI(t *testing.T, db string, args ...string) string {
	t.Helper()
	cmd := e2e.Command(bin, append([]string{"ui", "--db", db}, args...)...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(slack.Of(10 * time.Second)):
			_ = cmd.Process.Kill()
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/ui/login\?secret=[0-9a-f]+`)
		for sc.Scan() {
			if u := url.FindString(sc.Text()); u != "" {
				found <- u
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(slack.Of(20 * time.Second)):
		t.Fatal("the ui command printed no login URL")
	}
	return ""
}

// webFixture writes, through a server, what the pages show.
func webFixture(t *testing.T, db string) {
	p := e2e.Start(t, e2e.Command(bin, "--db", db))
	cs := p.Session
	mustCall(t, cs, "write_query", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"})
	mustCall(t, cs, "write_query", map[string]any{"query": fmt.Sprintf("INSERT INTO notes (body) VALUES (%s), (%s), ('plain')", sqlQuote(hostile), sqlQuote(hostileLink))})
	mustCall(t, cs, "create_view", map[string]any{"name": "note_bodies", "select_sql": "SELECT body FROM notes", "description": "every note's body <i>as text</i>"})
	mustCall(t, cs, "append_event", map[string]any{"content": hostile, "kind": "note"})
	for i := range 60 {
		mustCall(t, cs, "append_event", map[string]any{"content": fmt.Sprintf("step %d of the plan", i), "kind": "progress"})
	}
	mustCall(t, cs, "checkpoint", map[string]any{"summary": "sixty steps done; " + hostile})
	mustFail(t, cs, "read_query", map[string]any{"query": "SELECT nope FROM notes"})
	mustCall(t, cs, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE body = 'plain'", "reason": "clean up " + hostile})
	require.NoError(t, cs.Close())
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func countRows(t *testing.T, db, q string) int {
	t.Helper()
	h, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	require.NoError(t, err)
	defer h.Close()
	var n int
	require.NoError(t, h.QueryRow(q).Scan(&n))
	return n
}

func TestWebViewInBrowser(t *testing.T) {
	exe := chromium(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "agent.db")
	webFixture(t, db)
	login := startUI(t, db)
	base := login[:strings.Index(login, "/ui/")] + "/ui/"

	shots := os.Getenv("WEBUI_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()

	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		t.Log(what)
		require.NoError(t, chromedp.Do(ctx, steps...), what)
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err, "text of %s", sel)
		return s
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+strconv.Quote(sel)+`).length`))
		require.NoError(t, err, "count %s", sel)
		return n
	}
	// Each page's screenshot in the light and the dark theme, with the
	// text's contrast checked in both (webui_a11y_test.go).
	shot := func(name string) {
		t.Helper()
		shotBoth(t, ctx, shots, name)
	}
	var body string
	page := func(path string) {
		t.Helper()
		do("open "+path, chromedp.Navigate(base+path), chromedp.WaitReady(chromedp.CSS("main")))
		body = text("body")
		assertNoScript(t, ctx, path)
		assert.NotContains(t, body, dir, "%s shows an absolute path", path)
	}

	// Before logging in, every page leads to the login form.
	do("open unauthenticated", chromedp.Navigate(base+"memory"), chromedp.WaitVisible(chromedp.ID("token")))
	assertTabReaches(t, ctx, "login", "input#token[name=token]", "button Log in")
	// The one-time URL logs in once.
	do("log in", chromedp.Navigate(login), chromedp.WaitVisible(chromedp.CSS("h1")))
	body = text("body")
	assert.Contains(t, body, "Intact: 63 events verified")
	assert.NotContains(t, body, dir, "the overview shows an absolute path")
	assertNoScript(t, ctx, "overview")
	// The ui command walked the chain as it started: the first visit
	// shows that walk, and walks nothing itself.
	assert.Contains(t, body, "since then only this server wrote to the file", "the first visit after start")
	assertTabReaches(t, ctx, "overview", "a Skip to content", "a Memory", "button Log out", "button Verify the whole chain now")
	shot("overview")
	do("verify now", chromedp.Click(chromedp.CSS(`main form button`)), chromedp.WaitVisible(chromedp.CSS("p.now")))
	body = text("main")
	assert.Contains(t, body, "Intact: 63 events verified")
	assert.Contains(t, body, "The whole chain was walked now")

	page("memory")
	assert.Equal(t, 50, count("main tbody tr"), "a page of events")
	assertTabReaches(t, ctx, "memory", "input[name=q]", "input[name=kind]", "input[name=until]", "button Filter", "a Older")
	shot("memory")
	// Page to the older events, then filter by kind and search.
	do("older", chromedp.Click(chromedp.CSS(`a[rel="next"]`)), chromedp.WaitVisible(chromedp.CSS(`a[href="/ui/memory"]`)))
	assert.Equal(t, 13, count("main tbody tr"), "the rest of the 63 events")
	assert.Contains(t, text("main"), `<script>window.pwned=1;document.title="pwned"</script>`, "the event's content shows literally")
	assertNoScript(t, ctx, "older events")
	do("filter by kind", chromedp.Navigate(base+"memory"), chromedp.SetValue(chromedp.CSS(`input[name="kind"]`), "progress"),
		chromedp.Submit(chromedp.CSS(`input[name="kind"]`)), chromedp.WaitVisible(chromedp.CSS(`a[href="/ui/memory"]`)))
	assert.Equal(t, 50, count("main tbody tr"), "a page of the 60 progress events")
	assert.NotContains(t, text("main tbody"), "checkpoint")
	// Full-text search through search_memory's index, best match first.
	do("search", chromedp.SetValue(chromedp.CSS(`input[name="q"]`), "step 42"), chromedp.Submit(chromedp.CSS(`input[name="q"]`)),
		chromedp.WaitVisible(chromedp.CSS(`a[href="/ui/memory"]`)))
	assert.Contains(t, text("main tbody tr:first-child"), "42")
	// One event: its hash and its neighbours.
	do("open event", chromedp.Click(chromedp.CSS(`main tbody tr:first-child a`)), chromedp.WaitVisible(chromedp.CSS("pre.content")))
	body = text("main")
	assert.Contains(t, body, "step 42 of the plan")
	assert.Regexp(t, `Hash\s+[0-9a-f]{64}`, body)
	assert.Contains(t, body, "Previous: #")
	assertNoScript(t, ctx, "event")
	shot("event")

	page("memory/checkpoints")
	assert.Contains(t, body, "sealed")
	page("audit?tool=read_query&failures=1")
	assert.Equal(t, 1, count("main tbody tr"))
	assert.Contains(t, body, "no such column: nope")
	page("audit")
	assert.Equal(t, 3, count("svg.plot"), "three plots")
	assertTabReaches(t, ctx, "audit", "select[name=tool]", "input[name=failures]", "input[name=session]", "button Filter")
	shot("audit")

	page("tables")
	assert.Contains(t, body, "every note's body <i>as text</i>", "a view's description shows literally")
	page("tables/rows?name=notes")
	assert.Contains(t, body, hostileLink)
	assert.Equal(t, 0, count("main tbody a"), "no cell value became a link")
	shot("tables")

	// Undo the destructive call from the snapshots page, after its preview.
	require.Equal(t, 2, countRows(t, db, "SELECT count(*) FROM notes"))
	page("snapshots")
	assert.Contains(t, body, "DELETE FROM notes WHERE body = 'plain'")
	assertTabReaches(t, ctx, "snapshots", "a Undo…", "a Restore…")
	shot("snapshots")
	do("preview undo", chromedp.Click(chromedp.CSS(`a[href^="/ui/undo"]`)), chromedp.WaitVisible(chromedp.CSS("form.confirm")))
	assert.Contains(t, text("main"), "table 'notes': rows put back")
	assertNoScript(t, ctx, "undo")
	assertTabReaches(t, ctx, "undo", "input[name=confirm]", "button Undo call #")
	shot("undo")
	require.Equal(t, 2, countRows(t, db, "SELECT count(*) FROM notes"), "the preview changes nothing")
	do("confirm undo", chromedp.Click(chromedp.CSS(`input[name="confirm"]`)), chromedp.Click(chromedp.CSS(`form.confirm button`)),
		chromedp.WaitVisible(chromedp.CSS(`p.ok, p.error`)))
	assert.Contains(t, text("main"), "Restored 1 object(s)")
	assert.Equal(t, 3, countRows(t, db, "SELECT count(*) FROM notes"), "the undo put the row back")
	assert.Equal(t, 1, countRows(t, db, "SELECT count(*) FROM query_log WHERE tool = 'undo' AND ok = 1"), "audited as the undo command is")

	// A destructive call waits in the approval queue while its client
	// waits; the page shows the exact impact text; deny, then approve.
	srv := e2e.Start(t, e2e.Command(bin, "--db", db, "--confirm-fallback", "queue"))
	for i, answer := range []string{"deny", "approve"} {
		done := make(chan error, 1)
		var out string
		var isErr bool
		go func() {
			var err error
			out, isErr, err = call(srv.Session, "destructive_query", map[string]any{"query": "DELETE FROM notes WHERE id = 1", "reason": "drop it " + hostile})
			done <- err
		}()
		for end := time.Now().Add(callTimeout); time.Now().Before(end) && count("section.pending") == 0; time.Sleep(100 * time.Millisecond) {
			page("approvals")
		}
		require.Equal(t, 1, count("section.pending"), "the question shows")
		assert.Contains(t, text("main"), "- table 'notes': 1 row deleted")
		if i == 0 {
			assertTabReaches(t, ctx, "approvals", "summary SQL", "button[name=answer][value=approve]", "button[name=answer][value=deny]")
			shot("approvals")
		}
		require.Equal(t, 3, countRows(t, db, "SELECT count(*) FROM notes"), "nothing runs before the answer")
		do(answer, chromedp.Click(chromedp.CSS(`button[value="`+answer+`"]`)), chromedp.WaitVisible(chromedp.CSS(`p.ok, p.error`)))
		assert.Contains(t, text("main"), map[string]string{"deny": "denied", "approve": "approved"}[answer])
		require.NoError(t, <-done)
		if answer == "deny" {
			assert.True(t, isErr, out)
			assert.Contains(t, out, "the person declined")
			assert.Equal(t, 3, countRows(t, db, "SELECT count(*) FROM notes"))
		} else {
			assert.False(t, isErr, out)
			assert.Equal(t, 2, countRows(t, db, "SELECT count(*) FROM notes"))
		}
		assert.Equal(t, 1, countRows(t, db, "SELECT count(*) FROM query_log WHERE tool = '"+answer+"' AND ok = 1"), "audited as the %s command is", answer)
	}
}

// assertNoScript checks that nothing the agent wrote ran on the page.
func assertNoScript(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.pwned !== undefined`))
	require.NoError(t, err)
	assert.NotEqual(t, "pwned", title, "%s ran the agent's script", what)
	assert.False(t, pwned, "%s ran the agent's script", what)
}
