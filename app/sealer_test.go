package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/app"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/fake"
)

// sealsFor is a write port's answer to ports.AuditSealer: it seals the
// rows of one sink.
type sealsFor struct{ sink ports.AuditSink }

func (s sealsFor) Seals(sink ports.AuditSink) bool { return sink == s.sink }

// TestEachWritePortIsAskedWhetherItSeals: the write ports and the audit
// sink are separate values, as the SQLite adapter's services are. A port
// that says it seals the sink's rows gets the audit entry with the write
// (and the sink records nothing more); a port that says nothing, or seals
// another sink's rows, gets none, and the sink records the row after the
// write.
func TestEachWritePortIsAskedWhetherItSeals(t *testing.T) {
	sink := &fake.AuditLog{}
	other := &fake.AuditLog{}
	for _, tc := range []struct {
		name   string
		sealer *sealsFor // nil: the ports do not implement ports.AuditSealer
		sealed bool
	}{
		{"ports that seal the sink's rows", &sealsFor{sink}, true},
		{"ports that do not say", nil, false},
		{"ports that seal another sink's rows", &sealsFor{other}, false},
	} {
		for _, tool := range []struct {
			name string
			call func(context.Context, *app.Service) error
		}{
			{"write_query", func(ctx context.Context, s *app.Service) error {
				_, err := s.WriteQuery(ctx, domain.WriteQueryRequest{Query: "INSERT INTO t VALUES (1)"})
				return err
			}},
			{"create_view", func(ctx context.Context, s *app.Service) error {
				_, err := s.CreateView(ctx, domain.CreateViewRequest{Name: "v", SelectSQL: "SELECT 1"})
				return err
			}},
			{"append_event", func(ctx context.Context, s *app.Service) error {
				_, err := s.AppendEvent(ctx, domain.AppendEventRequest{Content: "a note", Kind: "note"})
				return err
			}},
		} {
			t.Run(tc.name+"/"+tool.name, func(t *testing.T) {
				*sink = fake.AuditLog{}
				sealedInto := &fake.AuditLog{} // where a write port seals rows
				st := &fake.Statements{Log: sealedInto,
					Compiled: domain.Compiled{Actions: []domain.Action{domain.ActionSelect}, Columns: 1}}
				schema := &fake.Schema{Log: sealedInto}
				memory := &fake.Memory{Log: sealedInto}
				d := app.Deps{Statements: st, Schema: schema, Views: schema, Candidates: &fake.CandidateRows{}, Memory: memory,
					Audit: sink, Clock: fake.NewClock(epoch)}
				if tc.sealer != nil {
					d.Statements = struct {
						*fake.Statements
						sealsFor
					}{st, *tc.sealer}
					d.Views = struct {
						*fake.Schema
						sealsFor
					}{schema, *tc.sealer}
					d.Memory = struct {
						*fake.Memory
						sealsFor
					}{memory, *tc.sealer}
				}
				svc := app.New(d, app.Options{Limits: domain.DefaultLimits(), Session: "20261201T100000Z-test"})
				require.NoError(t, tool.call(context.Background(), svc))
				if tc.sealed {
					assert.Len(t, sealedInto.Entries(), 1, "the row commits with the write")
					assert.Empty(t, sink.Entries(), "and is not recorded again")
				} else {
					assert.Empty(t, sealedInto.Entries(), "the write port is not asked to seal")
					require.Len(t, sink.Entries(), 1, "the sink records the row after the write")
					assert.Equal(t, tool.name, sink.Entries()[0].Tool)
				}
			})
		}
	}
}
