package webui

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// pageRows is how many rows a list shows at once.
const pageRows = 50

// eventRow is one memory event.
type eventRow struct {
	ID                                     int64
	TS, Session, Kind, Content, Hash, Prev string
	// RetractedBy and Retracted are the retraction that withdrew the
	// event and its reason (0 and "" when none); Provenance says where
	// it came from ("" when unknown). page_retract.go fills them.
	RetractedBy           int64
	Retracted, Provenance string
}

const eventCols = "id, ts, session, kind, content, hash, prev_hash"

func scanEvent(r []any) eventRow {
	return eventRow{ID: asInt(r[0]), TS: asText(r[1]), Session: asText(r[2]), Kind: asText(r[3]), Content: asText(r[4]), Hash: asText(r[5]), Prev: asText(r[6])}
}

// timeFilter adds ts bounds: since and until are compared as text with the
// stored UTC times, so a date (2026-01-31) or any prefix of a time works.
func timeFilter(where []string, since, until string) []string {
	if since != "" {
		where = append(where, "ts >= "+quoteSQL(since))
	}
	if until != "" {
		// until a date includes that whole day
		where = append(where, "ts < "+quoteSQL(until+"\uffff"))
	}
	return where
}

func whereSQL(where []string) string {
	if len(where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(where, " AND ")
}

func (v *view) memory() {
	ctx := v.r.Context()
	f := url.Values{}
	for _, k := range []string{"session", "kind", "q", "since", "until"} {
		f.Set(k, v.q(k))
	}
	var where []string
	if s := f.Get("session"); s != "" {
		where = append(where, "session = "+quoteSQL(s))
	}
	if k := f.Get("kind"); k != "" {
		where = append(where, "kind = "+quoteSQL(k))
	}
	if q := f.Get("q"); q != "" && v.h.d.Recall != nil && v.searchMemory(f) {
		return
	}
	if q := f.Get("q"); q != "" {
		// a bounded LIKE: the page stops at pageRows+1 matches
		where = append(where, "content LIKE "+likePattern(q)+" ESCAPE '\\'")
	}
	where = timeFilter(where, f.Get("since"), f.Get("until"))
	if b := v.id("before"); b > 0 {
		where = append(where, "id < "+strconv.FormatInt(b, 10))
	}
	var list []eventRow
	err := rows(ctx, v.h.d.DB, "SELECT "+eventCols+" FROM memory_events"+whereSQL(where)+" ORDER BY id DESC LIMIT "+strconv.Itoa(pageRows+1), func(r []any) {
		list = append(list, scanEvent(r))
	})
	if err == nil {
		err = v.markRetracted(ctx, list) // page_retract.go
	}
	d := map[string]any{"F": f, "Err": errString(err)}
	if len(list) > pageRows {
		list = list[:pageRows]
		n := url.Values{}
		for k := range f {
			n.Set(k, f.Get(k))
		}
		n.Set("before", strconv.FormatInt(list[len(list)-1].ID, 10))
		d["Older"] = link("memory", n)
	}
	if v.id("before") > 0 {
		n := url.Values{}
		for k := range f {
			n.Set(k, f.Get(k))
		}
		d["Newest"] = link("memory", n)
	}
	d["Events"] = list
	v.page("memory", "Memory", "memory", d)
}

func (v *view) event() {
	ctx := v.r.Context()
	id := v.id("id")
	var e *eventRow
	var prev, next int64
	q := "SELECT " + eventCols + " FROM memory_events WHERE id = " + strconv.FormatInt(id, 10)
	err := rows(ctx, v.h.d.DB, q, func(r []any) { x := scanEvent(r); e = &x })
	if err == nil && e != nil {
		err = rows(ctx, v.h.d.DB, "SELECT (SELECT max(id) FROM memory_events WHERE id < "+strconv.FormatInt(id, 10)+"), (SELECT min(id) FROM memory_events WHERE id > "+strconv.FormatInt(id, 10)+")", func(r []any) {
			prev, next = asInt(r[0]), asInt(r[1])
		})
	}
	if err == nil && e != nil {
		err = v.eventSides(ctx, e) // page_retract.go
	}
	if err != nil {
		v.fail(http.StatusInternalServerError, errText(err))
		return
	}
	if e == nil {
		v.fail(http.StatusNotFound, "no memory event #"+strconv.FormatInt(id, 10)+": see the Memory page for the events")
		return
	}
	v.page("event", "Event #"+strconv.FormatInt(id, 10), "memory", map[string]any{"E": e, "Prev": prev, "Next": next})
}

// checkpointRow is one checkpoint with its state.
type checkpointRow struct {
	ID, LastEventID                int64
	TS, Session, Summary, HeadHash string
	// State is sealed, unsealed or broken.
	State string
}

// checkpointRows are the latest n checkpoints, newest first, each marked
// sealed when a seal event claims it.
func (v *view) checkpointRows(ctx context.Context, n int) ([]checkpointRow, error) {
	var list []checkpointRow
	err := rows(ctx, v.h.d.DB, "SELECT id, ts, session, summary, last_event_id, head_hash FROM memory_checkpoints ORDER BY id DESC LIMIT "+strconv.Itoa(n), func(r []any) {
		list = append(list, checkpointRow{ID: asInt(r[0]), TS: asText(r[1]), Session: asText(r[2]), Summary: asText(r[3]), LastEventID: asInt(r[4]), HeadHash: asText(r[5]), State: "unsealed"})
	})
	if err != nil || len(list) == 0 {
		return list, err
	}
	// A checkpoint's seal is appended right after the head it is pinned
	// to, so each is looked up by id, not by scanning the events.
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = strconv.FormatInt(c.LastEventID+1, 10)
	}
	sealed := map[int64]bool{}
	q := "SELECT kind, content FROM memory_events WHERE id IN (" + strings.Join(ids, ", ") + ")"
	err = rows(ctx, v.h.d.DB, q, func(r []any) {
		e := domain.Event{Kind: asText(r[0]), Content: asText(r[1])}
		if id, ok := domain.SealID(e); ok {
			sealed[id] = true
		}
	})
	for i := range list {
		if sealed[list[i].ID] {
			list[i].State = "sealed"
		}
	}
	return list, err
}

func (v *view) checkpoints() {
	ctx := v.r.Context()
	list, err := v.checkpointRows(ctx, 200)
	chain, cerr := v.verify(ctx)
	if cerr == "" && !chain.OK && chain.CheckpointID > 0 {
		for i := range list {
			if list[i].ID == chain.CheckpointID {
				list[i].State = "broken"
			}
		}
	}
	v.page("checkpoints", "Checkpoints", "memory", map[string]any{"Checkpoints": list, "Err": errString(err), "Chain": chain, "ChainErr": cerr})
}

// hitRow is one search hit; Event says whether ID is an event's.
type hitRow struct {
	domain.MemoryHit
	Event bool
}

// searchMemory answers a search from the full-text index, best first, as
// search_memory ranks: one page of the best matches, filtered by kind,
// session and time. It returns false, rendering nothing, when the file has
// no index (a read-only look at a file no server indexed).
func (v *view) searchMemory(f url.Values) bool {
	d := map[string]any{"F": f, "Searched": true}
	q, err := domain.ParseMemoryQuery(f.Get("q"))
	if err != nil {
		d["Err"] = errText(err)
		v.page("memory", "Memory", "memory", d)
		return true
	}
	s := domain.MemorySearch{Query: q, Session: f.Get("session"), Since: f.Get("since"), Limit: pageRows}
	if k := f.Get("kind"); k != "" {
		s.Kinds = []string{k}
	}
	var hits []hitRow
	until := f.Get("until")
	res, err := v.h.d.Recall.Search(v.r.Context(), s, func(h domain.MemoryHit) {
		if until == "" || h.TS < until+"\uffff" {
			hits = append(hits, hitRow{MemoryHit: h, Event: h.Source == domain.SourceEvent})
		}
	})
	if errors.Is(err, domain.ErrUnavailable) {
		return false
	}
	d["Hits"], d["Err"], d["More"] = hits, errString(err), res.More
	v.page("memory", "Memory", "memory", d)
	return true
}
