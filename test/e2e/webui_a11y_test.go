package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The web view's keyboard, zoom and theme checks in Chromium, and the
// browser-driven restore: helpers TestWebViewInBrowser calls on its pages,
// and the tests that need a browser of their own.

// newBrowser starts one headless Chromium with a window w CSS px wide and
// returns its context (the first tab).
func newBrowser(t *testing.T, w, h int) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(w, h),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelT)
	return ctx
}

// colorScheme makes the page match prefers-color-scheme: scheme ("" ends
// the emulation).
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		p := emulation.SetEmulatedMediaParams{}
		if scheme != "" {
			p.Features = []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}
		}
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, p)
		return err
	})
}

// contrastJS is the contrast ratio (WCAG 2) of the body's text against its
// background, and of each element matching the selectors that is on the
// page against the body's background, as "selector ratio" lines.
const contrastJS = `(() => {
  const rgb = s => s.match(/[\d.]+/g).slice(0, 3).map(Number);
  const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const bg = getComputedStyle(document.body).backgroundColor;
  const out = ["body " + ratio(getComputedStyle(document.body).color, bg).toFixed(2)];
  for (const sel of ["main p", "main a", "main td", ".muted", "p.ok", "nav a"]) {
    const el = document.querySelector(sel);
    if (el) out.push(sel + " " + ratio(getComputedStyle(el).color, bg).toFixed(2));
  }
  return out.join("\n");
})()`

// assertContrast checks that the page's body text, links, table cells and
// muted notes reach 4.5:1 against the background in the current theme.
func assertContrast(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	lines, err := chromedp.Run(ctx, chromedp.Evaluate[string](contrastJS))
	require.NoError(t, err)
	for _, l := range strings.Split(lines, "\n") {
		var sel string
		var ratio float64
		i := strings.LastIndexByte(l, ' ')
		sel = l[:i]
		_, err := fmt.Sscan(l[i+1:], &ratio)
		require.NoError(t, err, l)
		assert.GreaterOrEqual(t, ratio, 4.5, "%s: %s text against the background", what, sel)
	}
}

// shotBoth saves the page as name.png in the light theme and
// name-dark.png in the dark one, checking contrast in each.
func shotBoth(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	for _, scheme := range []string{"light", "dark"} {
		require.NoError(t, chromedp.Do(ctx, colorScheme(scheme)))
		dark, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`matchMedia("(prefers-color-scheme: dark)").matches`))
		require.NoError(t, err)
		require.Equal(t, scheme == "dark", dark, "the emulated scheme applies")
		assertContrast(t, ctx, name+" ("+scheme+")")
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err, "screenshot "+name)
		file := name + ".png"
		if scheme == "dark" {
			file = name + "-dark.png"
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, file), png, 0o644))
	}
	require.NoError(t, chromedp.Do(ctx, colorScheme("")))
}

// focusJS describes the focused element and whether it shows a focus
// ring: "tag#id[name=N][value=V] text|ring" or "...|none".
const focusJS = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return "body|none";
  let d = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.name ? "[name=" + el.name + "]" : "");
  if (el.tagName === "BUTTON" && el.value) d += "[value=" + el.value + "]";
  d += " " + (el.textContent || "").trim().slice(0, 40);
  const cs = getComputedStyle(el);
  const ring = el.matches(":focus-visible") && cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) >= 2;
  return d + "|" + (ring ? "ring" : "none");
})()`

// assertTabReaches presses Tab from the top of the page until focus comes
// back round (or 80 times) and checks that each want (a prefix of the
// description focusJS gives) is reached, each focused element with a
// visible focus ring.
func assertTabReaches(t *testing.T, ctx context.Context, what string, wants ...string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement && document.activeElement.blur(), true`))
	require.NoError(t, err)
	var order []string
	for range 80 {
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("\t")))
		d, err := chromedp.Run(ctx, chromedp.Evaluate[string](focusJS))
		require.NoError(t, err)
		desc, ring, _ := strings.Cut(d, "|")
		if len(order) > 0 && desc == order[0] {
			break
		}
		order = append(order, desc)
		if desc != "body" {
			assert.Equal(t, "ring", ring, "%s: %q has no visible focus style", what, desc)
		}
	}
	for _, w := range wants {
		assert.True(t, containsPrefix(order, w), "%s: Tab never reaches %q; the order was %q", what, w, order)
	}
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement && document.activeElement.blur(), true`))
	require.NoError(t, err, "blur, so that the screenshots show no focus ring")
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// assertReflows checks that the page does not scroll sideways (only a data
// table inside its own scroll container may be wider than the window).
func assertReflows(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
  const s = document.scrollingElement;
  if (s.scrollWidth <= s.clientWidth) return "";
  const w = s.clientWidth, out = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest(".scroll")) continue;
    const r = el.getBoundingClientRect();
    const name = el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className : "");
    if (r.right > w + 1) out.push(name + " " + Math.round(r.right));
    else if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) out.push(name + " holds " + el.scrollWidth);
  }
  return s.scrollWidth + " > " + w + ": " + out.slice(0, 8).join(", ");
})()`))
	require.NoError(t, err)
	assert.Empty(t, wide, "%s scrolls sideways at 320 CSS px (400%% zoom)", what)
}

// At 400% zoom (a 320 CSS px wide window, as WCAG's reflow criterion
// counts) no page scrolls sideways; then the Snapshots page's restore,
// previewed and confirmed in the browser, rewinds the database.
func TestWebViewSmallScreenAndRestore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "agent.db")
	webFixture(t, db)
	login := startUI(t, db)
	base := login[:strings.Index(login, "/ui/")] + "/ui/"
	ctx := newBrowser(t, 320, 800)
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
	do("small window", chromedp.EmulateViewport(320, 800))
	do("open login", chromedp.Navigate(base+"login"), chromedp.WaitVisible(chromedp.ID("token")))
	assertReflows(t, ctx, "login")
	do("log in", chromedp.Navigate(login), chromedp.WaitVisible(chromedp.CSS("h1")))
	for _, page := range []string{"", "memory", "memory?q=step", "memory/event?id=2", "memory/checkpoints", "audit", "audit/call?id=3",
		"snapshots", "undo", "tables", "tables/rows?name=notes", "approvals"} {
		do("open "+page, chromedp.Navigate(base+page), chromedp.WaitReady(chromedp.CSS("main")))
		assertReflows(t, ctx, "/ui/"+page)
	}

	// Restore the snapshot the destructive call took: preview, confirm.
	require.Equal(t, 2, countRows(t, db, "SELECT count(*) FROM notes"))
	do("open snapshots", chromedp.Navigate(base+"snapshots"), chromedp.WaitReady(chromedp.CSS("main")))
	do("preview restore", chromedp.Click(chromedp.CSS(`a[href^="/ui/restore"]`)), chromedp.WaitVisible(chromedp.CSS("form.confirm")))
	assert.Contains(t, text("main"), "rewinds everything since it was taken")
	assertReflows(t, ctx, "restore preview")
	require.Equal(t, 2, countRows(t, db, "SELECT count(*) FROM notes"), "the preview changes nothing")
	do("confirm restore", chromedp.Click(chromedp.CSS(`input[name="confirm"]`)), chromedp.Click(chromedp.CSS(`form.confirm button`)),
		chromedp.WaitVisible(chromedp.CSS(`p.ok, p.error`)))
	main := text("main")
	assert.Contains(t, main, "over the database.")
	assert.Contains(t, main, "The database was saved first as")
	assert.Equal(t, 3, countRows(t, db, "SELECT count(*) FROM notes"), "the deleted row is back")
	assert.Equal(t, 1, countRows(t, db, "SELECT count(*) FROM notes WHERE body = 'plain'"))
	assert.Zero(t, countRows(t, db, "SELECT count(*) FROM query_log WHERE tool = 'destructive_query'"), "the audit log is rewound with the file")

	// The restore rewrote the file behind the view's back: the overview
	// walks the whole chain again, which the snapshot keeps intact.
	do("overview after restore", chromedp.Navigate(base), chromedp.WaitReady(chromedp.CSS("main")))
	main = text("main")
	assert.Contains(t, main, "Intact: 63 events verified")
	assert.Contains(t, main, "The whole chain was walked for this page")
}
