package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/snapshot"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/approval"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/undo"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/webui"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	wiring "github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/wire"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// webDeps are the web view's reads and actions on w: the read tier on the
// database (and on the audit store), the core's tools, the snapshot folder,
// and undo as the undo command runs it (none with --read-only).
func webDeps(cfg settings.Config, w *wiring.Wiring, log *slog.Logger, session string) webui.Deps {
	d := webui.Deps{
		DB: sqlite.NewStatementRunner(w.Store), Limits: cfg.Limits, ReadOnly: cfg.ReadOnly,
		Replication: replicationNote(cfg.Replicate),
	}
	if w.Service != nil {
		d.Tools = w.Service.KeepingTables() // the rows page shows typed values
	}
	d.Recall = w.Deps.Recall
	if w.AuditStore != nil {
		d.Audit = sqlite.NewStatementRunner(w.AuditStore)
	}
	if cfg.Limits.Snapshots > 0 {
		d.Snapshots = webSnapshots{newSnapshotter(cfg, log)}
	}
	d.Approvals = webApprovals{store: w.Store}
	if !cfg.ReadOnly {
		d.Undo = webUndo{cfg: cfg, w: w, log: log, session: session}
	}
	return d
}

// warmChain verifies the memory chain in the background as the view
// starts, so that its first visit finds the chain remembered instead of
// walking it then (a page has no script to say "verifying..."). A visit
// during the walk waits for it (app's walk lock) rather than making its own.
// wait stops the walk if it still runs and waits for it to end.
func warmChain(ctx context.Context, w *wiring.Wiring) (wait func()) {
	if w.Service == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = w.Service.VerifiedChain(ctx) // a failure shows on the page's own check
	}()
	return func() { cancel(); <-done }
}

// replicationNote is replication's line on the overview: the replica's
// scheme and host, never its path or credentials.
func replicationNote(replica string) string {
	if replica == "" {
		return ""
	}
	u, err := url.Parse(replica)
	if err != nil || u.Scheme == "" {
		return "on"
	}
	return "on, to a " + u.Scheme + " replica" + map[bool]string{true: " at " + u.Host, false: ""}[u.Host != "" && u.Scheme != "file"]
}

// webSnapshots lists the snapshot folder, by base name.
type webSnapshots struct{ s *snapshot.Snapshotter }

// List is the folder's snapshots.
func (s webSnapshots) List() ([]webui.Snapshot, error) {
	list, err := s.s.List()
	out := make([]webui.Snapshot, 0, len(list))
	for _, i := range list {
		out = append(out, webui.Snapshot{Name: i.Name, Bytes: i.Bytes, Modified: i.Modified})
	}
	return out, err
}

// webUndo is the undo command's use case for the web view: one undoer per
// request, app.Undo over it, the fresh snapshot first when snapshots are on.
type webUndo struct {
	cfg     settings.Config
	w       *wiring.Wiring
	log     *slog.Logger
	session string
}

// Undo plans the undo of call and, when apply, restores.
func (u webUndo) Undo(ctx context.Context, call int64, decide func(domain.UndoPlan) (apply, overwriteLater bool)) (domain.UndoPlan, webui.UndoResult, error) {
	undoer := undo.New(u.w.Store)
	defer undoer.Close()
	deps := app.UndoDeps{Undoer: undoer, Clock: systemClock{}, Session: u.session}
	if u.cfg.Limits.Snapshots > 0 {
		deps.Snapshots = newSnapshotter(u.cfg, u.log)
	}
	uc := app.NewUndo(deps)
	plan, err := uc.Plan(ctx, call)
	if err != nil {
		return plan, webui.UndoResult{}, err
	}
	apply, overwriteLater := decide(plan)
	if !apply {
		return plan, webui.UndoResult{}, nil
	}
	res, err := uc.Apply(ctx, plan, overwriteLater, "the overwrite choice")
	if err != nil {
		return plan, webui.UndoResult{}, err
	}
	return plan, webui.UndoResult{EventID: res.Event.ID, Fresh: filepath.Base(res.Fresh)}, nil
}

// RestoreOver restores name over the database as `snapshots restore NAME
// --over` does.
func (s webSnapshots) RestoreOver(ctx context.Context, name string) (string, error) {
	fresh, err := s.s.RestoreOver(ctx, name)
	return filepath.Base(fresh), err
}

var _ webui.Undoer = webUndo{}

// httpWebView is the view an --http server serves at /ui/: its bearer
// token logs in, or with OAuth an access token its verifier accepts (the
// token's scopes decide whether the view may act); without a static token
// (a loopback address) a one-time secret is printed on stderr too, as by
// the ui command.
func httpWebView(cfg settings.Config, w *wiring.Wiring, log *slog.Logger, session string, hosts []string, stderr io.Writer) http.Handler {
	o := webui.Options{Token: cfg.HTTP.Token, Hosts: hosts, Logger: log}
	if cfg.HTTP.OAuth != nil {
		// The login form takes an access token, checked as /mcp checks it.
		o.Verifier = cfg.HTTP.OAuth.Verifier
	}
	if o.Token == "" {
		o.Secret = webui.NewSecret()
		_, _ = fmt.Fprintf(stderr, "%s: web view at http://%s%slogin?secret=%s (the secret works once)\n", settings.ProgName, cfg.HTTP.Addr, webui.Prefix, o.Secret)
	}
	return webui.New(webDeps(cfg, w, log, session), o)
}

// webApprovals is the approval queue for the web view: the questions as
// the pending command reads them, decisions as approve and deny store
// them (decide).
type webApprovals struct{ store *sqlite.Store }

// Pending are the questions still waiting.
func (a webApprovals) Pending(ctx context.Context) ([]webui.Pending, error) {
	list, err := approval.New(a.store, systemClock{}).List(ctx, true, systemClock{}.Now())
	out := make([]webui.Pending, 0, len(list))
	for _, q := range list {
		out = append(out, webui.Pending{ID: q.ID, Tool: q.Tool, Query: q.Query, Impact: q.Question, Asked: q.TS, Expires: q.Expires, Session: q.Session})
	}
	return out, err
}

// Answer decides question id.
func (a webApprovals) Answer(ctx context.Context, id int64, approve bool) error {
	_, err := decide(ctx, a.store, id, approve, fmt.Sprintf("web view (pid %d)", os.Getpid()))
	return err
}

var _ webui.Approvals = webApprovals{}
