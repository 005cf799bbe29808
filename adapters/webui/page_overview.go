package webui

import (
	"context"
	"encoding/json"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// chainStatus is verify_chain's result object.
type chainStatus struct {
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

// verify runs verify_chain as the verify command does (audited).
func (v *view) verify(ctx context.Context) (chainStatus, string) {
	var c chainStatus
	if v.h.d.Tools == nil {
		return c, "the memory tools are not offered on this database"
	}
	res, err := v.h.d.Tools.VerifyChain(ctx, domain.VerifyChainRequest{})
	text := res.Text
	if err != nil {
		return c, errText(err)
	}
	if err := json.Unmarshal([]byte(text), &c); err != nil {
		return c, domain.ToolVerifyChain + " answered something unexpected: " + short(200, text)
	}
	return c, ""
}

func (v *view) overview() {
	ctx := v.r.Context()
	d := map[string]any{}
	chain, cerr := v.verify(ctx)
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
