package domain_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

const resumeTS = "2026-09-13T10:11:12Z"

// resumeEvents returns events first..first+n-1 whose content is a label
// padded with 'x' to pad bytes (pad 0 keeps the bare label).
func resumeEvents(first int64, n, pad int) []domain.Event {
	events := make([]domain.Event, n)
	for i := range events {
		id := first + int64(i)
		content := fmt.Sprintf("event %d ", id)
		if pad > len(content) {
			content += strings.Repeat("x", pad-len(content))
		}
		events[i] = domain.Event{ID: id, TS: resumeTS, Session: exampleSession, Kind: "note", Content: content}
	}
	return events
}

// csvRows spells events as the resume context's CSV rows, each with "\n".
func csvRows(events []domain.Event) string {
	var b []byte
	for _, e := range events {
		b = domain.AppendCSVLine(b, []string{strconv.FormatInt(e.ID, 10), e.TS, e.Kind, e.Content})
	}
	return string(b)
}

func TestRenderResumeExactExamples(t *testing.T) {
	t.Parallel()
	cp := &domain.Checkpoint{ID: 1, TS: resumeTS, Session: exampleSession, Summary: "two events in, all good",
		LastEventID: 2, HeadHash: example2Hash}
	after := domain.Event{ID: 3, TS: resumeTS, Session: exampleSession, Kind: "note", Content: "after checkpoint"}
	tests := []struct {
		name string
		in   domain.ResumeInput
		want domain.ResumeOutput
	}{
		{
			name: "no checkpoint, no events",
			in:   domain.ResumeInput{Chain: domain.VerifyResult{OK: true, HeadHash: domain.Genesis}, MaxBytes: 65536, MaxCellChars: 2000},
			want: domain.ResumeOutput{Text: "# no checkpoint yet\n\n# 0 events | chain ok (0 events)"},
		},
		{
			name: "one event after an anchored checkpoint",
			in: domain.ResumeInput{Checkpoint: cp, Anchored: true, Chain: domain.VerifyResult{OK: true, Events: 3, HeadID: 3},
				Total: 1, Events: []domain.Event{after}, MaxBytes: 65536, MaxCellChars: 2000},
			want: domain.ResumeOutput{Shown: 1, Text: "# checkpoint 1 | " + resumeTS + " | session " + exampleSession + " | at event 2\n" +
				"two events in, all good\n" + unsealedLine + "\n# 1 events since checkpoint | chain ok (3 events)\n" +
				"id,ts,kind,content\n3," + resumeTS + ",note,after checkpoint"},
		},
		{
			name: "checkpoint that is no longer anchored",
			in: domain.ResumeInput{Checkpoint: cp, Anchored: false, Chain: domain.VerifyResult{OK: true, Events: 3, HeadID: 3},
				Total: 1, Events: []domain.Event{after}, MaxBytes: 65536, MaxCellChars: 2000},
			want: domain.ResumeOutput{Shown: 1, Text: "# checkpoint 1 | " + resumeTS + " | session " + exampleSession + " | at event 2\n" +
				"# WARNING: the checkpoint no longer matches the event it points at\n" +
				"two events in, all good\n" + unsealedLine + "\n# 1 events since checkpoint | chain ok (3 events)\n" +
				"id,ts,kind,content\n3," + resumeTS + ",note,after checkpoint"},
		},
		{
			name: "no checkpoint, broken chain, more events than loaded",
			in: domain.ResumeInput{Chain: domain.VerifyResult{Events: 9, HeadID: 3, BreakAt: 4,
				Reason: "prev_hash does not match the hash of event 3"},
				Total: 9, Events: resumeEvents(8, 2, 0), MaxBytes: 65536, MaxCellChars: 2000},
			want: domain.ResumeOutput{Shown: 2, Text: "# no checkpoint yet\n\n" +
				"# 9 events, showing the most recent 2 | chain BROKEN at event 4: prev_hash does not match the hash of event 3\n" +
				"id,ts,kind,content\n8," + resumeTS + ",note,event 8 \n9," + resumeTS + ",note,event 9 "},
		},
		{
			name: "multi-line summary kept verbatim, no events since",
			in: domain.ResumeInput{Checkpoint: &domain.Checkpoint{ID: 4, TS: resumeTS, Session: "s", Summary: "done:\n- a\n- b",
				LastEventID: 9}, Anchored: true, Chain: domain.VerifyResult{OK: true, Events: 9}, MaxBytes: 65536, MaxCellChars: 2000},
			want: domain.ResumeOutput{Text: "# checkpoint 4 | " + resumeTS + " | session s | at event 9\ndone:\n- a\n- b\n" + unsealedLine + "\n" +
				"# 0 events since checkpoint | chain ok (9 events)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, domain.RenderResume(tt.in))
		})
	}
}

func TestRenderResumeCellsAreCSV(t *testing.T) {
	t.Parallel()
	events := []domain.Event{
		{ID: 5, TS: resumeTS, Kind: "decision", Content: "use a, not b"},
		{ID: 6, TS: resumeTS, Kind: "note", Content: "say \"hi\"\nthen go"},
		{ID: 7, TS: resumeTS, Kind: "note", Content: strings.Repeat("y", 20)},
	}
	got := domain.RenderResume(domain.ResumeInput{Chain: domain.VerifyResult{OK: true, Events: 7}, Total: 3,
		Events: events, MaxBytes: 65536, MaxCellChars: 16})
	want := "# no checkpoint yet\n\n# 3 events | chain ok (7 events)\nid,ts,kind,content\n" +
		"5,2026-09-13T10:11...[+4 chars],decision,\"use a, not b\"\n" +
		"6,2026-09-13T10:11...[+4 chars],note,\"say \"\"hi\"\"\nthen go\"\n" +
		"7,2026-09-13T10:11...[+4 chars],note,yyyyyyyyyyyyyyyy...[+4 chars]"
	assert.Equal(t, domain.ResumeOutput{Text: want, Shown: 3}, got)
}

func TestRenderResumeExcludedKindsAreTheCallersCount(t *testing.T) {
	t.Parallel()
	// Events 3 and 5 of 6 are shown: 4 and 6 were excluded by kind before
	// rendering. The status line counts the events given (Total), while the
	// chain part still counts every event of the chain.
	events := []domain.Event{
		{ID: 3, TS: resumeTS, Kind: "decision", Content: "keep"},
		{ID: 5, TS: resumeTS, Kind: "decision", Content: "keep too"},
	}
	cp := &domain.Checkpoint{ID: 2, TS: resumeTS, Session: "s", Summary: "sum", LastEventID: 2}
	got := domain.RenderResume(domain.ResumeInput{Checkpoint: cp, Anchored: true,
		Chain: domain.VerifyResult{OK: true, Events: 6, HeadID: 6}, Total: 2, Events: events, MaxBytes: 65536, MaxCellChars: 2000})
	want := "# checkpoint 2 | " + resumeTS + " | session s | at event 2\nsum\n" + unsealedLine + "\n" +
		"# 2 events since checkpoint | chain ok (6 events)\nid,ts,kind,content\n" +
		"3," + resumeTS + ",decision,keep\n5," + resumeTS + ",decision,keep too"
	assert.Equal(t, domain.ResumeOutput{Text: want, Shown: 2}, got)
}

// overflowText is the expected output without a checkpoint when only the
// newest `shown` of events fit maxBytes.
func overflowText(total int, events []domain.Event, shown, maxBytes int) string {
	kept := events[len(events)-shown:]
	return fmt.Sprintf("# no checkpoint yet\n\n# %d events, showing the most recent %d | chain ok (%d events)\n"+
		"id,ts,kind,content\n%s\n# %d older events dropped to fit %d bytes; read them with read_query on memory_events",
		total, shown, total, strings.TrimSuffix(csvRows(kept), "\n"), len(events)-shown, maxBytes)
}

func TestRenderResumeDropsOldestToFit(t *testing.T) {
	t.Parallel()
	events := resumeEvents(1, 10, 100) // each CSV line is 128 bytes
	for _, shown := range []int{1, 3, 8} {
		t.Run(strconv.Itoa(shown)+" newest fit", func(t *testing.T) {
			t.Parallel()
			// A budget a little above what `shown` rows need, well short of
			// one more row.
			maxBytes := len(overflowText(10, events, shown, 1000)) + 20
			got := domain.RenderResume(domain.ResumeInput{Chain: domain.VerifyResult{OK: true, Events: 10}, Total: 10,
				Events: events, MaxBytes: maxBytes, MaxCellChars: 2000})
			// docs/decisions.md#fixes-over-the-reference, item 12: "showing the most recent" counts the rows really shown.
			want := domain.ResumeOutput{Text: overflowText(10, events, shown, maxBytes), Shown: shown, Dropped: 10 - shown}
			assert.Equal(t, want, got)
			assert.LessOrEqual(t, len(got.Text), maxBytes)
		})
	}
}

func TestRenderResumeNewestEventTooLarge(t *testing.T) {
	t.Parallel()
	events := resumeEvents(1, 3, 10)
	events[2].Content = strings.Repeat("z", 1000)
	got := domain.RenderResume(domain.ResumeInput{Chain: domain.VerifyResult{OK: true, Events: 3}, Total: 3,
		Events: events, MaxBytes: 400, MaxCellChars: 2000})
	// Older, smaller events are not shown in its place: the shown events are
	// always the newest ones. Without rows the CSV header is left out too.
	want := "# no checkpoint yet\n\n# 3 events, showing the most recent 0 | chain ok (3 events)\n" +
		"# 3 older events dropped to fit 400 bytes; read them with read_query on memory_events"
	assert.Equal(t, domain.ResumeOutput{Text: want, Dropped: 3}, got)
}

// unsealedLine is the coverage line of a checkpoint the chain does not seal.
const unsealedLine = "# not sealed (written by the reference implementation or an older server): no hash covers this summary\n"

var summaryCutLine = regexp.MustCompile(`(?m)^# checkpoint summary cut to (\d+) of (\d+) chars; read it with read_query on memory_checkpoints \(id 7\)$`)

func TestRenderResumeCutsSummary(t *testing.T) {
	t.Parallel()
	summary := strings.Repeat("é", 3000) // 6000 bytes
	tests := []struct {
		name      string
		events    []domain.Event
		maxBytes  int
		wantShown int
	}{
		{"summary alone over budget", nil, 2000, 0},
		{"small events all kept, summary gets the rest", resumeEvents(1, 3, 50), 2000, 3},
		// About 1550 bytes remain after the fixed lines: the events get at
		// most half of them (5 lines of 130 bytes), the summary the rest.
		{"large events get at most half", resumeEvents(1, 40, 100), 2000, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cp := &domain.Checkpoint{ID: 7, TS: resumeTS, Session: "s", Summary: summary, LastEventID: 1}
			got := domain.RenderResume(domain.ResumeInput{Checkpoint: cp, Anchored: true,
				Chain: domain.VerifyResult{OK: true, Events: int64(len(tt.events))}, Total: len(tt.events),
				Events: tt.events, MaxBytes: tt.maxBytes, MaxCellChars: 2000})
			assert.LessOrEqual(t, len(got.Text), tt.maxBytes)
			assert.Greater(t, len(got.Text), tt.maxBytes-10, "the budget is used, not wasted")
			assert.True(t, utf8.ValidString(got.Text), "the cut never splits a character")
			assert.Equal(t, tt.wantShown, got.Shown)
			assert.Equal(t, len(tt.events)-tt.wantShown, got.Dropped)

			m := summaryCutLine.FindStringSubmatch(got.Text)
			require.NotNil(t, m, "the cut is announced on its own line")
			assert.Equal(t, "3000", m[2])
			kept, err := strconv.Atoi(m[1])
			require.NoError(t, err)
			lines := strings.Split(got.Text, "\n")
			assert.Equal(t, strings.Repeat("é", kept), lines[1], "the summary line holds exactly the chars announced")
			assert.Equal(t, m[0], lines[2])
		})
	}
}

func TestRenderResumeShortSummaryIsNotCut(t *testing.T) {
	t.Parallel()
	cp := &domain.Checkpoint{ID: 7, TS: resumeTS, Session: "s", Summary: strings.Repeat("s", 100), LastEventID: 1}
	events := resumeEvents(2, 10, 100)
	got := domain.RenderResume(domain.ResumeInput{Checkpoint: cp, Anchored: true,
		Chain: domain.VerifyResult{OK: true, Events: 11}, Total: 10, Events: events, MaxBytes: 1000, MaxCellChars: 2000})
	assert.NotRegexp(t, summaryCutLine, got.Text)
	assert.Contains(t, got.Text, "\n"+cp.Summary+"\n"+unsealedLine+"\n")
	assert.Positive(t, got.Dropped, "events make room, not the summary")
	assert.LessOrEqual(t, len(got.Text), 1000)
}

func TestRenderResumeNeverExceedsBudget(t *testing.T) {
	t.Parallel()
	events := resumeEvents(1, 30, 0)
	for i := range events {
		events[i].Content = strings.Repeat("ü,\n", i*3) // mixed sizes, quoting, multibyte
	}
	cp := &domain.Checkpoint{ID: 1, TS: resumeTS, Session: "s", Summary: strings.Repeat("Σ summary ", 80), LastEventID: 0}
	for maxBytes := 700; maxBytes <= 4000; maxBytes += 61 {
		for _, withCP := range []bool{false, true} {
			in := domain.ResumeInput{Chain: domain.VerifyResult{OK: true, Events: 30}, Total: 40,
				Events: events, MaxBytes: maxBytes, MaxCellChars: 2000}
			if withCP {
				in.Checkpoint, in.Anchored = cp, true
			}
			got := domain.RenderResume(in)
			name := fmt.Sprintf("max_bytes=%d checkpoint=%v", maxBytes, withCP)
			assert.LessOrEqual(t, len(got.Text), maxBytes, name)
			assert.Equal(t, len(events), got.Shown+got.Dropped, name)
			assert.Contains(t, got.Text, fmt.Sprintf(", showing the most recent %d |", got.Shown), name)
			if got.Shown > 0 {
				assert.True(t, strings.HasSuffix(got.Text, strings.TrimSuffix(csvRows(events[len(events)-got.Shown:]), "\n")) ||
					strings.Contains(got.Text, csvRows(events[len(events)-got.Shown:])), name)
			}
			assert.False(t, strings.HasSuffix(got.Text, "\n"), name)
		}
	}
}
