package domain_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

const (
	exampleSession = "20260913T101100Z-3fa9"
	example1Hash   = "f4a4ee18857837ec4dd5f406a52841a34e82da2cd871dcce1cf1175d3def4aa7"
	example2Hash   = "c5325acf3553293c31e680ff7f7040c8d4f69a2294ef7fa568db41845d8b501f"
)

// workedExample1 and workedExample2 are the worked examples of docs/decisions.md#hash-chain.
func workedExample1() domain.Event {
	return domain.Event{
		ID: 1, TS: "2026-09-13T10:11:12Z", Session: exampleSession, Kind: "note",
		Content: "hello world", PrevHash: domain.Genesis, Hash: example1Hash,
	}
}

func workedExample2() domain.Event {
	return domain.Event{
		ID: 2, TS: "2026-09-13T10:11:13Z", Session: exampleSession, Kind: "decision",
		Content:  "café \"quoted\" \\ back\nline\ttab \u2028 <&> \x01 \x7f é😀",
		PrevHash: example1Hash, Hash: example2Hash,
	}
}

func TestGenesis(t *testing.T) {
	t.Parallel()
	assert.Equal(t, strings.Repeat("0", 64), domain.Genesis)
}

func TestEventPayloadAndHash(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		event      domain.Event
		payloadHex string
		hash       string
	}{
		{
			name:  "worked example 1",
			event: workedExample1(),
			payloadHex: hex.EncodeToString([]byte(`[1,"2026-09-13T10:11:12Z","20260913T101100Z-3fa9","note","hello world","` +
				domain.Genesis + `"]`)),
			hash: example1Hash,
		},
		{
			name:  "worked example 2, escaping stress test",
			event: workedExample2(),
			payloadHex: "5b322c22323032362d30392d31335431303a31313a31335a222c223230323630393133543130313130305a2d33666139222c" +
				"226465636973696f6e222c22636166c3a9205c2271756f7465645c22205c5c206261636b5c6e6c696e655c7474616220e280a8" +
				"203c263e205c7530303031207f20c3a9f09f9880222c22663461346565313838353738333765633464643566343036613532383431" +
				"6133346538326461326364383731646363653163663131373564336465663461613722" + "5d",
			hash: example2Hash,
		},
		{
			name:       "short vector",
			event:      domain.Event{ID: 1, TS: "t", Session: "s", Kind: "note", Content: "c", PrevHash: domain.Genesis},
			payloadHex: hex.EncodeToString([]byte(`[1,"t","s","note","c","` + domain.Genesis + `"]`)),
			hash:       "7dcdbac0adfef20ad4c95d5c13d6c2d2b9b380b90dc0212e3c6724e9005a2d2f",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.payloadHex, hex.EncodeToString(tt.event.Payload()))
			assert.Equal(t, tt.hash, tt.event.ComputeHash())
		})
	}
}

func TestComputeHashChangesWithEveryField(t *testing.T) {
	t.Parallel()
	base := domain.Event{ID: 1, TS: "t", Session: "s", Kind: "note", Content: "c", PrevHash: domain.Genesis}
	tests := []struct {
		name   string
		change func(*domain.Event)
	}{
		{"id", func(e *domain.Event) { e.ID = 2 }},
		{"ts", func(e *domain.Event) { e.TS = "u" }},
		{"session", func(e *domain.Event) { e.Session = "S" }},
		{"kind", func(e *domain.Event) { e.Kind = "decision" }},
		{"content", func(e *domain.Event) { e.Content = "c " }},
		{"prev_hash", func(e *domain.Event) { e.PrevHash = example1Hash }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := base
			tt.change(&e)
			assert.NotEqual(t, base.ComputeHash(), e.ComputeHash())
		})
	}
}

// referenceChain is the layout of testdata/reference-chain.json.
type referenceChain struct {
	Genesis string `json:"genesis"`
	Events  []struct {
		ID         int64  `json:"id"`
		TS         string `json:"ts"`
		Session    string `json:"session"`
		Kind       string `json:"kind"`
		Content    string `json:"content"`
		PrevHash   string `json:"prev_hash"`
		PayloadHex string `json:"payload_hex"`
		Hash       string `json:"hash"`
	} `json:"events"`
}

// mustReferenceChain loads the 20 events hashed by an independent
// implementation of the reference rule.
func mustReferenceChain(t *testing.T) ([]domain.Event, referenceChain) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "reference-chain.json"))
	require.NoError(t, err)
	var ref referenceChain
	require.NoError(t, json.Unmarshal(raw, &ref))
	require.Len(t, ref.Events, 20)
	events := make([]domain.Event, len(ref.Events))
	for i, e := range ref.Events {
		events[i] = domain.Event{ID: e.ID, TS: e.TS, Session: e.Session, Kind: e.Kind,
			Content: e.Content, PrevHash: e.PrevHash, Hash: e.Hash}
	}
	return events, ref
}

func TestReferenceChainVectors(t *testing.T) {
	t.Parallel()
	events, ref := mustReferenceChain(t)
	assert.Equal(t, domain.Genesis, ref.Genesis)
	for i, e := range events {
		t.Run(fmt.Sprintf("event %02d %s", e.ID, e.Kind), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, ref.Events[i].PayloadHex, hex.EncodeToString(e.Payload()), "event %d payload", e.ID)
			assert.Equal(t, ref.Events[i].Hash, e.ComputeHash(), "event %d hash", e.ID)
		})
	}
}

func TestReferenceChainVerifies(t *testing.T) {
	t.Parallel()
	events, _ := mustReferenceChain(t)
	v := domain.NewChainVerifier()
	for _, e := range events {
		require.True(t, v.Add(e), "event %d", e.ID)
	}
	want := domain.VerifyResult{OK: true, Events: 20, HeadID: 20, HeadHash: events[19].Hash}
	assert.Equal(t, want, v.Result(20))
}

func TestReferenceChainRebuiltWithNewEvent(t *testing.T) {
	t.Parallel()
	events, _ := mustReferenceChain(t)
	headID, headHash := int64(0), domain.Genesis
	for _, want := range events {
		// Surrounding whitespace is stripped before hashing, as the fixture's
		// content was stripped before storing.
		got, err := domain.NewEvent(headID, headHash, want.TS, want.Session, " "+want.Kind+"\n", "\t "+want.Content+" \u3000")
		require.NoError(t, err)
		assert.Equal(t, want, got)
		headID, headHash = got.ID, got.Hash
	}
}

func TestNewEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		kind    string
		content string
		want    domain.Event
	}{
		{"worked example 1 from an empty chain", "note", "hello world", workedExample1()},
		{"empty kind becomes note", "", "  hello world\n", workedExample1()},
		{"blank kind becomes note", " \t\x1c", "hello world", workedExample1()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := domain.NewEvent(0, domain.Genesis, "2026-09-13T10:11:12Z", exampleSession, tt.kind, tt.content)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	t.Run("worked example 2 follows example 1", func(t *testing.T) {
		t.Parallel()
		want := workedExample2()
		got, err := domain.NewEvent(1, example1Hash, want.TS, exampleSession, " decision ", want.Content)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	})
}

func TestNewEventRejectsEmptyContent(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"empty":                  "",
		"spaces and newlines":    " \n\t\r ",
		"information separators": "\x1c\x1d\x1e\x1f",
		"no-break, ideographic and line separator": "\u00a0\u3000\u2028",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := domain.NewEvent(0, domain.Genesis, "t", "s", "note", content)
			require.ErrorIs(t, err, domain.ErrInvalidArgument)
		})
	}
}

// mustChain builds a valid chain of n events with [domain.NewEvent].
func mustChain(t *testing.T, n int) []domain.Event {
	t.Helper()
	events := make([]domain.Event, 0, n)
	headID, headHash := int64(0), domain.Genesis
	for i := range n {
		e, err := domain.NewEvent(headID, headHash, "2026-09-13T10:11:12Z", exampleSession, "note", fmt.Sprintf("event number %d", i+1))
		require.NoError(t, err)
		events = append(events, e)
		headID, headHash = e.ID, e.Hash
	}
	return events
}

func TestChainVerifier(t *testing.T) {
	t.Parallel()
	chain := mustChain(t, 5)
	const (
		altered = "stored hash does not match the recomputed hash (content or metadata was altered)"
	)
	tests := []struct {
		name   string
		mutate func([]domain.Event) []domain.Event
		want   domain.VerifyResult
	}{
		{
			name:   "intact chain",
			mutate: func(es []domain.Event) []domain.Event { return es },
			want:   domain.VerifyResult{OK: true, Events: 5, HeadID: 5, HeadHash: chain[4].Hash},
		},
		{
			name:   "empty chain",
			mutate: func([]domain.Event) []domain.Event { return nil },
			want:   domain.VerifyResult{OK: true, Events: 0, HeadID: 0, HeadHash: domain.Genesis},
		},
		{
			name: "gap: event 3 deleted",
			mutate: func(es []domain.Event) []domain.Event {
				return append(es[:2:2], es[3:]...)
			},
			want: domain.VerifyResult{Events: 4, HeadID: 2, HeadHash: chain[1].Hash, BreakAt: 4,
				Reason: "id gap: expected event 3, found 4 (rows were deleted or renumbered)"},
		},
		{
			name: "gap: first event deleted",
			mutate: func(es []domain.Event) []domain.Event {
				return es[1:]
			},
			want: domain.VerifyResult{Events: 4, HeadID: 0, HeadHash: domain.Genesis, BreakAt: 2,
				Reason: "id gap: expected event 1, found 2 (rows were deleted or renumbered)"},
		},
		{
			name: "renumbered ids: event 3 deleted and later ids shifted down",
			mutate: func(es []domain.Event) []domain.Event {
				out := append(es[:2:2], es[3:]...)
				out[2].ID, out[3].ID = 3, 4
				return out
			},
			want: domain.VerifyResult{Events: 4, HeadID: 2, HeadHash: chain[1].Hash, BreakAt: 3,
				Reason: "prev_hash does not match the hash of event 2"},
		},
		{
			name: "altered content",
			mutate: func(es []domain.Event) []domain.Event {
				es[2].Content += "!"
				return es
			},
			want: domain.VerifyResult{Events: 5, HeadID: 2, HeadHash: chain[1].Hash, BreakAt: 3, Reason: altered},
		},
		{
			name: "altered metadata (ts)",
			mutate: func(es []domain.Event) []domain.Event {
				es[3].TS = "2026-09-13T10:11:13Z"
				return es
			},
			want: domain.VerifyResult{Events: 5, HeadID: 3, HeadHash: chain[2].Hash, BreakAt: 4, Reason: altered},
		},
		{
			name: "altered prev_hash",
			mutate: func(es []domain.Event) []domain.Event {
				es[2].PrevHash = chain[0].Hash
				return es
			},
			want: domain.VerifyResult{Events: 5, HeadID: 2, HeadHash: chain[1].Hash, BreakAt: 3,
				Reason: "prev_hash does not match the hash of event 2"},
		},
		{
			name: "altered hash",
			mutate: func(es []domain.Event) []domain.Event {
				es[2].Hash = chain[1].Hash
				return es
			},
			want: domain.VerifyResult{Events: 5, HeadID: 2, HeadHash: chain[1].Hash, BreakAt: 3, Reason: altered},
		},
		{
			name: "hash in uppercase hex does not match",
			mutate: func(es []domain.Event) []domain.Event {
				es[0].Hash = strings.ToUpper(es[0].Hash)
				return es
			},
			want: domain.VerifyResult{Events: 5, HeadID: 0, HeadHash: domain.Genesis, BreakAt: 1, Reason: altered},
		},
		{
			name: "content altered and rehashed breaks the next link",
			mutate: func(es []domain.Event) []domain.Event {
				es[1].Content = "rewritten"
				es[1].Hash = es[1].ComputeHash()
				return es
			},
			want: domain.VerifyResult{Events: 5, HeadID: 2, HeadHash: domain.Event{ID: 2, TS: chain[1].TS,
				Session: exampleSession, Kind: "note", Content: "rewritten", PrevHash: chain[0].Hash}.ComputeHash(),
				BreakAt: 3, Reason: "prev_hash does not match the hash of event 2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			events := tt.mutate(append([]domain.Event(nil), chain...))
			v := domain.NewChainVerifier()
			for _, e := range events {
				v.Add(e)
			}
			assert.Equal(t, tt.want, v.Result(int64(len(events))))
		})
	}
}

func TestChainVerifierStopsAtFirstBreak(t *testing.T) {
	t.Parallel()
	chain := mustChain(t, 4)
	chain[1].Content = "tampered"
	v := domain.NewChainVerifier()
	assert.True(t, v.Add(chain[0]))
	assert.False(t, v.Add(chain[1]))
	before := v.Result(4)
	// A later event, even a good one, is ignored: the first break stands.
	assert.False(t, v.Add(chain[2]))
	assert.False(t, v.Add(domain.Event{ID: 99}))
	assert.Equal(t, before, v.Result(4))
	assert.Equal(t, int64(2), before.BreakAt)
}

func TestVerifyResultJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   domain.VerifyResult
		want string
	}{
		{
			name: "ok",
			in:   domain.VerifyResult{OK: true, Events: 3, HeadID: 3, HeadHash: example2Hash},
			want: `{"ok": true, "events": 3, "head_id": 3, "head_hash": "` + example2Hash + `"}`,
		},
		{
			name: "empty chain",
			in:   domain.NewChainVerifier().Result(0),
			want: `{"ok": true, "events": 0, "head_id": 0, "head_hash": "` + domain.Genesis + `"}`,
		},
		{
			name: "broken",
			in: domain.VerifyResult{Events: 7, HeadID: 2, HeadHash: example1Hash, BreakAt: 4,
				Reason: "id gap: expected event 3, found 4 (rows were deleted or renumbered)"},
			want: `{"ok": false, "events": 7, "head_id": 2, "head_hash": "` + example1Hash +
				`", "break_at_id": 4, "reason": "id gap: expected event 3, found 4 (rows were deleted or renumbered)"}`,
		},
		{
			name: "reason is JSON-escaped",
			in:   domain.VerifyResult{Events: 1, HeadHash: domain.Genesis, BreakAt: 1, Reason: "say \"x\"\n"},
			want: `{"ok": false, "events": 1, "head_id": 0, "head_hash": "` + domain.Genesis +
				`", "break_at_id": 1, "reason": "say \"x\"\n"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.in.JSON())
		})
	}
}

func TestVerifyResultChainSummary(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "chain ok (3 events)", domain.VerifyResult{OK: true, Events: 3}.ChainSummary())
	assert.Equal(t, "chain BROKEN at event 4: prev_hash does not match the hash of event 3",
		domain.VerifyResult{Events: 9, BreakAt: 4, Reason: "prev_hash does not match the hash of event 3"}.ChainSummary())
}
