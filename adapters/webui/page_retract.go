package webui

import (
	"context"
	"strconv"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// sideTables reports which of the memory's side tables the file has
// (docs/decisions.md#retractions, #provenance): a file no writable server
// appended to since they came has neither.
func (v *view) sideTables(ctx context.Context) (retractions, provenance bool, err error) {
	err = rows(ctx, v.h.d.DB, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ("+
		quoteSQL(domain.RetractionsTable)+", "+quoteSQL(domain.ProvenanceTable)+")", func(r []any) {
		switch asText(r[0]) {
		case domain.RetractionsTable:
			retractions = true
		case domain.ProvenanceTable:
			provenance = true
		}
	})
	return retractions, provenance, err
}

// markRetracted fills the Retracted fields of the events in list that a
// retraction withdrew.
func (v *view) markRetracted(ctx context.Context, list []eventRow) error {
	if len(list) == 0 {
		return nil
	}
	has, _, err := v.sideTables(ctx)
	if err != nil || !has {
		return err
	}
	ids := make([]string, len(list))
	at := map[int64]int{}
	for i, e := range list {
		ids[i], at[e.ID] = strconv.FormatInt(e.ID, 10), i
	}
	return rows(ctx, v.h.d.DB, "SELECT event_id, retraction_id, reason FROM "+domain.RetractionsTable+" WHERE event_id IN ("+strings.Join(ids, ", ")+")", func(r []any) {
		if i, ok := at[asInt(r[0])]; ok {
			list[i].RetractedBy, list[i].Retracted = asInt(r[1]), asText(r[2])
		}
	})
}

// eventSides fills e's retraction and provenance, when the file keeps them.
func (v *view) eventSides(ctx context.Context, e *eventRow) error {
	retractions, provenance, err := v.sideTables(ctx)
	if err != nil {
		return err
	}
	if retractions {
		l := []eventRow{*e}
		if err := v.markRetracted(ctx, l); err != nil {
			return err
		}
		*e = l[0]
	}
	if !provenance {
		return nil
	}
	return rows(ctx, v.h.d.DB, "SELECT transport, client, client_version, http_session, command FROM "+domain.ProvenanceTable+" WHERE event_id = "+strconv.FormatInt(e.ID, 10), func(r []any) {
		e.Provenance = domain.Provenance{Transport: asText(r[0]), Client: asText(r[1]), ClientVersion: asText(r[2]), HTTPSession: asText(r[3]), Command: asText(r[4])}.String()
	})
}
