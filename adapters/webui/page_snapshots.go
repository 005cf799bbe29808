package webui

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// snapshotRow is one snapshot with the call that took it, when known.
type snapshotRow struct {
	Snapshot
	Call *takenBy
}

// takenBy is the destructive call (or snapshot tool call) that took a
// snapshot: its id, SQL and reason.
type takenBy struct {
	ID                      int64
	TS, Tool, Query, Reason string
	Undoable                bool
}

func (v *view) snapshots() {
	ctx := v.r.Context()
	d := map[string]any{"CanUndo": v.h.d.Undo != nil && !v.readOnly()}
	if v.h.d.Snapshots == nil {
		d["Err"] = "snapshots are off (--snapshots 0) or this process cannot list their folder"
		v.page("snapshots", "Snapshots", "snapshots", d)
		return
	}
	list, err := v.h.d.Snapshots.List()
	if err != nil {
		d["Err"] = errText(err)
	}
	by := map[string]*takenBy{}
	q := "SELECT id, ts, tool, coalesce(query, ''), coalesce(detail, '') FROM query_log WHERE ok = 1 AND tool IN (" +
		quoteSQL(domain.ToolDestructiveQuery) + ", " + quoteSQL(domain.ToolSnapshot) + ") ORDER BY id DESC LIMIT 1000"
	aerr := rows(ctx, v.h.d.Audit, q, func(r []any) {
		var det struct{ Reason, Snapshot, Path string }
		if json.Unmarshal([]byte(asText(r[4])), &det) != nil {
			return
		}
		name := baseName(det.Snapshot + det.Path)
		if name == "" || by[name] != nil {
			return
		}
		tool := asText(r[2])
		by[name] = &takenBy{ID: asInt(r[0]), TS: asText(r[1]), Tool: tool, Query: asText(r[3]), Reason: det.Reason, Undoable: tool == domain.ToolDestructiveQuery}
	})
	var out []snapshotRow
	for _, s := range list {
		out = append(out, snapshotRow{Snapshot: s, Call: by[s.Name]})
	}
	d["Snapshots"], d["AuditErr"] = out, errString(aerr)
	v.page("snapshots", "Snapshots", "snapshots", d)
}

// undo previews an undo (GET) or applies it (POST), as the undo command:
// the same plan text, the same refusal of later changes without the
// overwrite choice, the same use case, event and audit row. The form
// carries the preview's digest; an apply restores only the plan that was
// shown (made again, on the same undoer that restores it).
func (v *view) undo() {
	if v.readOnly() {
		v.fail(http.StatusForbidden, "undo writes the database, which "+v.whyReadOnly()+" forbids")
		return
	}
	if v.h.d.Undo == nil {
		v.fail(http.StatusForbidden, "undo is not offered on this database")
		return
	}
	var refused string
	plan, res, err := v.h.d.Undo.Undo(v.r.Context(), v.id("call"), func(p domain.UndoPlan) (bool, bool) {
		switch {
		case !v.post():
		case v.q("confirm") != "yes":
			refused = "nothing was restored: tick the confirmation box to restore"
		case v.q("plan") != planDigest(p):
			refused = "nothing was restored: what undo would restore changed since the preview; read the new preview below and confirm again"
		default:
			return true, v.q("overwrite_later") == "yes"
		}
		return false, false
	})
	if err != nil && plan.Call.ID == 0 {
		v.fail(http.StatusConflict, errText(err))
		return
	}
	d := map[string]any{"Call": plan.Call.ID, "Describe": baseNames(plan.Describe()), "Empty": plan.Empty(), "Later": len(plan.Later) > 0, "Digest": planDigest(plan)}
	switch {
	case err != nil:
		d["Err"] = errText(err)
	case refused != "":
		d["Err"] = refused
	case res.EventID > 0:
		d["Done"], d["EventID"], d["Fresh"], d["Restored"] = true, res.EventID, baseName(res.Fresh), len(plan.Restore)
	}
	v.page("undo", "Undo call #"+strconv.FormatInt(plan.Call.ID, 10), "snapshots", d)
}

// planDigest names a plan's preview.
func planDigest(p domain.UndoPlan) string {
	sum := sha256.Sum256([]byte(p.Describe()))
	return hex.EncodeToString(sum[:8])
}

// restore previews (GET) or runs (POST) a restore of one snapshot over the
// database, as `snapshots restore NAME --over`: a fresh snapshot first, then
// the whole file rewound, memory and audit log included.
func (v *view) restore() {
	if v.readOnly() {
		v.fail(http.StatusForbidden, "restoring over the database writes it, which "+v.whyReadOnly()+" forbids")
		return
	}
	if v.h.d.Snapshots == nil {
		v.fail(http.StatusForbidden, "snapshots are off (--snapshots 0) or this process cannot list their folder: there is nothing to restore")
		return
	}
	name := v.q("name")
	list, err := v.h.d.Snapshots.List()
	if err != nil {
		v.fail(http.StatusInternalServerError, errText(err))
		return
	}
	var snap *Snapshot
	for i := range list {
		if list[i].Name == name {
			snap = &list[i]
		}
	}
	if snap == nil {
		v.fail(http.StatusNotFound, "no snapshot by that name: see the Snapshots page")
		return
	}
	d := map[string]any{"S": snap}
	if v.post() {
		if v.q("confirm") != "yes" {
			d["Err"] = "nothing was restored: tick the confirmation box to restore"
		} else if fresh, err := v.h.d.Snapshots.RestoreOver(v.r.Context(), name); err != nil {
			d["Err"] = errText(err)
		} else {
			d["Done"], d["Fresh"] = true, baseName(fresh)
		}
	}
	v.page("restore", "Restore "+name, "snapshots", d)
}
