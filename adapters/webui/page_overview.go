package webui

import (
	"context"
	"encoding/json"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// chainStatus is the chain's state as a page shows it.
type chainStatus struct {
	domain.VerifyResult
	// Whole says this visit walked the whole chain; Walked is when the
	// last whole walk began, Checked when this state was made.
	Whole           bool
	Walked, Checked string
}

// verify is the chain's state from the core's remembered verification
// (ports.ChainChecker): only the events this process appended are checked
// when nothing else committed to the file since the last walk; anything
// else, and the whole chain is walked again. It leaves no audit row.
func (v *view) verify(ctx context.Context) (chainStatus, string) {
	if v.h.d.Tools == nil {
		return chainStatus{}, "the memory tools are not offered on this database"
	}
	c, err := v.h.d.Tools.VerifiedChain(ctx)
	if err != nil {
		return chainStatus{}, errText(err)
	}
	return chainStatus{VerifyResult: c.Result, Whole: c.Whole, Walked: domain.FormatTS(c.Walked), Checked: domain.FormatTS(c.Checked)}, ""
}

// verifyNow runs verify_chain as the verify command does (a whole walk,
// audited), for the overview's button.
func (v *view) verifyNow(ctx context.Context) (chainStatus, string) {
	if v.h.d.Tools == nil {
		return chainStatus{}, "the memory tools are not offered on this database"
	}
	res, err := v.h.d.Tools.VerifyChain(ctx, domain.VerifyChainRequest{})
	text := res.Text
	if err != nil {
		return chainStatus{}, errText(err)
	}
	var c struct {
		OK           bool   `json:"ok"`
		Events       int64  `json:"events"`
		HeadID       int64  `json:"head_id"`
		HeadHash     string `json:"head_hash"`
		BreakAt      int64  `json:"break_at_id"`
		Reason       string `json:"reason"`
		Checkpoints  int64  `json:"checkpoints"`
		Sealed       int64  `json:"sealed"`
		CheckpointID int64  `json:"checkpoint_id"`
	}
	if err := json.Unmarshal([]byte(text), &c); err != nil {
		return chainStatus{}, domain.ToolVerifyChain + " answered something unexpected: " + short(200, text)
	}
	now := domain.FormatTS(v.h.d.Clock.Now())
	return chainStatus{VerifyResult: domain.VerifyResult{OK: c.OK, Events: c.Events, HeadID: c.HeadID, HeadHash: c.HeadHash, BreakAt: c.BreakAt,
		Reason: c.Reason, Checkpoints: c.Checkpoints, Sealed: c.Sealed, CheckpointID: c.CheckpointID}, Whole: true, Walked: now, Checked: now}, ""
}

func (v *view) overview() {
	ctx := v.r.Context()
	d := map[string]any{"VerifyTool": domain.ToolVerifyChain}
	var chain chainStatus
	var cerr string
	if v.post() {
		// The button: a whole walk now, audited as verify_chain.
		chain, cerr = v.verifyNow(ctx)
		d["VerifiedNow"] = true
	} else {
		chain, cerr = v.verify(ctx)
	}
	d["Chain"], d["ChainErr"] = chain, cerr

	var events, checkpoints int64
	err := rows(ctx, v.h.d.DB, "SELECT (SELECT count(*) FROM memory_events), (SELECT count(*) FROM memory_checkpoints)", func(r []any) {
		events, checkpoints = asInt(r[0]), asInt(r[1])
	})
	d["Events"], d["Checkpoints"], d["MemoryErr"] = events, checkpoints, errString(err)
	var latest *checkpointRow
	if err == nil {
		cps, _ := v.checkpointRows(ctx, 1)
		if len(cps) > 0 {
			latest = &cps[0]
		}
	}
	d["Latest"] = latest

	var calls, failures int64
	err = rows(ctx, v.h.d.Audit, "SELECT count(*), coalesce(sum(ok = 0), 0) FROM query_log", func(r []any) {
		calls, failures = asInt(r[0]), asInt(r[1])
	})
	d["Calls"], d["Failures"], d["AuditErr"] = calls, failures, errString(err)

	if v.h.d.Snapshots != nil {
		list, err := v.h.d.Snapshots.List()
		var total int64
		for _, s := range list {
			total += s.Bytes
		}
		d["Snapshots"], d["SnapshotBytes"], d["SnapshotErr"], d["HasSnapshots"] = len(list), total, errString(err), true
	}
	d["Replication"] = v.h.d.Replication
	v.page("overview", "Overview", "overview", d)
}

// errString is err's page text, "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return errText(err)
}
