package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestNewCheckpoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		headID   int64
		headHash string
		summary  string
		want     domain.Checkpoint
	}{
		{
			name: "after the two worked examples", headID: 2, headHash: example2Hash, summary: "two events in, all good",
			want: domain.Checkpoint{TS: "2026-09-13T10:11:14Z", Session: exampleSession,
				Summary: "two events in, all good", LastEventID: 2, HeadHash: example2Hash},
		},
		{
			name: "on an empty chain", headID: 0, headHash: domain.Genesis, summary: "starting out",
			want: domain.Checkpoint{TS: "2026-09-13T10:11:14Z", Session: exampleSession,
				Summary: "starting out", LastEventID: 0, HeadHash: domain.Genesis},
		},
		{
			name: "summary is stripped, inner lines kept", headID: 1, headHash: example1Hash, summary: "\n\u3000line 1\nline 2\x1f \n",
			want: domain.Checkpoint{TS: "2026-09-13T10:11:14Z", Session: exampleSession,
				Summary: "line 1\nline 2", LastEventID: 1, HeadHash: example1Hash},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := domain.NewCheckpoint(tt.headID, tt.headHash, "2026-09-13T10:11:14Z", exampleSession, tt.summary)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNewCheckpointRejectsEmptySummary(t *testing.T) {
	t.Parallel()
	for name, summary := range map[string]string{
		"empty":                  "",
		"whitespace":             " \n\t ",
		"information separators": "\x1c\x1f",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := domain.NewCheckpoint(0, domain.Genesis, "t", "s", summary)
			require.ErrorIs(t, err, domain.ErrInvalidArgument)
		})
	}
}

func TestCheckpointAnchored(t *testing.T) {
	t.Parallel()
	atEvent2 := domain.Checkpoint{LastEventID: 2, HeadHash: example2Hash}
	tests := []struct {
		name        string
		cp          domain.Checkpoint
		eventHash   string
		eventExists bool
		want        bool
	}{
		{"event exists with the recorded hash", atEvent2, example2Hash, true, true},
		{"event exists with another hash", atEvent2, example1Hash, true, false},
		{"event is missing", atEvent2, "", false, false},
		{"missing event is not rescued by a matching hash", atEvent2, example2Hash, false, false},
		{"empty chain checkpoint with GENESIS", domain.Checkpoint{LastEventID: 0, HeadHash: domain.Genesis}, "", false, true},
		{"empty chain checkpoint with another hash", domain.Checkpoint{LastEventID: 0, HeadHash: example1Hash}, example1Hash, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.cp.Anchored(tt.eventHash, tt.eventExists))
		})
	}
}

func TestFormatTS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"UTC", time.Date(2026, 9, 13, 10, 11, 12, 0, time.UTC), "2026-09-13T10:11:12Z"},
		{"sub-second digits are dropped", time.Date(2026, 9, 13, 10, 11, 12, 999_999_999, time.UTC), "2026-09-13T10:11:12Z"},
		{"other zones become UTC", time.Date(2026, 9, 13, 12, 11, 12, 0, time.FixedZone("CEST", 2*3600)), "2026-09-13T10:11:12Z"},
		{"single digits are zero-padded", time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC), "2027-01-02T03:04:05Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, domain.FormatTS(tt.in))
		})
	}
}

func TestNewSessionID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     time.Time
		random [2]byte
		want   string
	}{
		{"spec example", time.Date(2026, 9, 13, 10, 11, 0, 0, time.UTC), [2]byte{0x3f, 0xa9}, "20260913T101100Z-3fa9"},
		{"zero bytes keep four digits", time.Date(2026, 9, 13, 10, 11, 0, 0, time.UTC), [2]byte{0, 0}, "20260913T101100Z-0000"},
		{"lowercase hex", time.Date(2026, 9, 13, 10, 11, 0, 0, time.UTC), [2]byte{0xff, 0xab}, "20260913T101100Z-ffab"},
		{"other zones become UTC", time.Date(2026, 9, 13, 1, 2, 3, 5e8, time.FixedZone("X", -3600)), [2]byte{1, 2}, "20260913T020203Z-0102"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, domain.NewSessionID(tt.in, tt.random))
		})
	}
}
