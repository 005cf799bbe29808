package domain

import (
	"strconv"
	"unicode/utf8"
)

// ResumeInput is everything get_resume_context shows, already loaded.
type ResumeInput struct {
	// Checkpoint is the latest checkpoint, or nil when there is none.
	Checkpoint *Checkpoint
	// Anchored reports whether Checkpoint still matches the event it points
	// at (see [Checkpoint.Anchored]); ignored without a checkpoint.
	Anchored bool
	// Coverage says whether the chain seals Checkpoint (see
	// [Checkpoint.Coverage]); ignored without a checkpoint.
	Coverage Coverage
	// Chain is the result of verifying the whole chain.
	Chain VerifyResult
	// Total counts the events after the checkpoint, excluded kinds left out.
	Total int
	// Retracted counts the retracted events after the checkpoint, left
	// out of Total and Events; the status line says how many.
	Retracted int
	// Events are the loaded events, oldest first: the most recent
	// max_events of the Total.
	Events []Event
	// MaxBytes caps the whole text, checkpoint summary included (2 x
	// max_result_bytes: docs/decisions.md#resume-context).
	MaxBytes int
	// MaxCellChars caps each CSV cell, in code points, as in read_query.
	MaxCellChars int
}

// ResumeOutput is the rendered resume context.
type ResumeOutput struct {
	// Text is the output, without a trailing newline.
	Text string
	// Shown is the number of events in the CSV.
	Shown int
	// Dropped is the number of loaded events left out to fit MaxBytes.
	Dropped int
}

// resumeColumns is the CSV header of the events.
var resumeColumns = []string{"id", "ts", "kind", "content"}

// RenderResume renders the resume context (docs/decisions.md#resume-context)
// with the fixes of #fixes-over-the-reference items 7 and 12. Lines are joined by "\n":
//
//	# checkpoint <id> | <ts> | session <session> | at event <last_event_id>
//	# WARNING: the checkpoint no longer matches the event it points at   (only when not anchored)
//	<summary>
//	# checkpoint summary cut to <n> of <m> chars; read it with ...      (only when cut)
//	# sealed in the chain by event <n>: ... | # not sealed ... | # WARNING: ... seal ...
//	<empty line>
//	# <total> events since checkpoint[, showing the most recent <shown>][, <n> retracted left out] | <chain>
//	id,ts,kind,content
//	<one CSV line per shown event, oldest first>
//	# <dropped> older events dropped to fit <max_bytes> bytes; read them ... (only when dropped)
//
// Without a checkpoint the first block is "# no checkpoint yet" and an empty
// line, and the status line reads "# <total> events[, showing ...] | ...".
// The CSV is left out when no event is shown. "showing the most recent" counts
// the events really shown, after byte dropping (fix 12).
//
// How the MaxBytes budget is shared. When everything fits, nothing is cut.
// Otherwise the fixed lines (headers, status line, CSV header and the notice
// lines, first reserved at their longest so the result cannot overshoot) come
// off the budget and are never cut; what remains is shared between the
// summary and the events so that neither can starve the other: the events are
// guaranteed up to half of it (less if they need less), the summary may use
// everything the events leave, and the events then get what the summary left.
// Bytes the reservation did not need go to the summary if it was cut, else to
// more events. The summary is cut at a code point boundary and says so on its
// own line (fix 7). Events are kept newest first, as many consecutive ones as
// fit, and shown oldest first; an event whose line does not fit ends the run
// even if an older, shorter one would fit, so the events shown are always the
// most recent ones. Only a MaxBytes smaller than the fixed lines themselves
// (a few hundred bytes) can be exceeded.
func RenderResume(in ResumeInput) ResumeOutput {
	// Render each event's CSV line once; rows[i] belongs to in.Events[i].
	rows := make([][]byte, len(in.Events))
	need := 0
	for i, e := range in.Events {
		rows[i] = appendEventLine(nil, e, in.MaxCellChars)
		need += len(rows[i])
	}
	summary := ""
	if in.Checkpoint != nil {
		summary = in.Checkpoint.Summary
	}

	full := resumeLayout{summary: summary, rows: rows}
	if text := full.render(in); len(text) <= in.MaxBytes {
		return ResumeOutput{Text: text, Shown: len(rows)}
	}

	out := shareBudget(in, summary, rows, need)
	text := out.render(in)
	if out.summaryCut {
		out, text = out.growSummary(in, summary, text)
	} else {
		out, text = out.growRows(in, rows, text)
	}
	return ResumeOutput{Text: text, Shown: len(out.rows), Dropped: out.dropped}
}

// shareBudget lays out an over-budget resume context as [RenderResume]
// describes, with the optional lines reserved at their longest.
func shareBudget(in ResumeInput, summary string, rows [][]byte, need int) resumeLayout {
	n := len(rows)
	chars := utf8.RuneCountInString(summary)
	worst := resumeLayout{
		summaryCut:   in.Checkpoint != nil,
		summaryChars: chars,
		keptChars:    chars,
		csvHeader:    n > 0,
		shownWorst:   n,
		dropped:      n,
	}
	avail := max(in.MaxBytes-len(worst.render(in)), 0)

	out := resumeLayout{summary: summary}
	if limit := avail - min(need, avail/2); len(summary) > limit {
		out.summary, out.keptChars = cutToBytes(summary, limit)
		out.summaryCut, out.summaryChars = true, chars
	}
	left := avail - len(out.summary)
	first := n // index of the oldest event shown
	for first > 0 && len(rows[first-1]) <= left {
		first--
		left -= len(rows[first])
	}
	out.rows, out.dropped = rows[first:], first
	return out
}

// growSummary gives the bytes left under MaxBytes to a cut summary. Only the
// count of kept chars in the notice can grow besides the summary itself, by
// at most the digits the whole count has more, so that much is held back.
func (l resumeLayout) growSummary(in ResumeInput, summary, text string) (resumeLayout, string) {
	slack := in.MaxBytes - len(text) - (len(strconv.Itoa(l.summaryChars)) - len(strconv.Itoa(l.keptChars)))
	if slack <= 0 {
		return l, text
	}
	grown := l
	grown.summary, grown.keptChars = cutToBytes(summary, len(l.summary)+slack)
	if grown.keptChars == l.keptChars {
		return l, text
	}
	return grown, grown.render(in)
}

// growRows adds older events, one at a time, while the whole text still fits
// MaxBytes. Each try is measured, because the counts in the status and drop
// lines change with it and the drop line disappears once nothing is dropped.
func (l resumeLayout) growRows(in ResumeInput, rows [][]byte, text string) (resumeLayout, string) {
	for l.dropped > 0 {
		grown := l
		grown.dropped--
		grown.rows = rows[grown.dropped:]
		t := grown.render(in)
		if len(t) > in.MaxBytes {
			break
		}
		l, text = grown, t
	}
	return l, text
}

// resumeLayout is one way to render the resume context: the summary as
// shown, the event lines shown, and which optional lines appear.
type resumeLayout struct {
	summary      string   // the summary as shown, maybe cut
	summaryCut   bool     // add the "summary cut" line
	keptChars    int      // code points of the summary shown, when cut
	summaryChars int      // code points of the whole summary, when cut
	rows         [][]byte // the event lines shown, oldest first, each ending in "\n"
	csvHeader    bool     // add the CSV header even without rows (measuring only)
	shownWorst   int      // when > 0, measure the status line as if showing this many
	dropped      int      // events dropped to fit; adds the "dropped" line when > 0
}

// render writes the layout as text, without a trailing newline.
func (l resumeLayout) render(in ResumeInput) string {
	b := make([]byte, 0, 256+len(l.summary)+64*len(l.rows))
	if cp := in.Checkpoint; cp != nil {
		b = append(b, "# checkpoint "...)
		b = strconv.AppendInt(b, cp.ID, 10)
		b = append(b, " | "...)
		b = append(b, cp.TS...)
		b = append(b, " | session "...)
		b = append(b, cp.Session...)
		b = append(b, " | at event "...)
		b = strconv.AppendInt(b, cp.LastEventID, 10)
		b = append(b, '\n')
		if !in.Anchored {
			b = append(b, "# WARNING: the checkpoint no longer matches the event it points at\n"...)
		}
		b = append(b, l.summary...)
		b = append(b, '\n')
		if l.summaryCut {
			b = append(b, "# checkpoint summary cut to "...)
			b = strconv.AppendInt(b, int64(l.keptChars), 10)
			b = append(b, " of "...)
			b = strconv.AppendInt(b, int64(l.summaryChars), 10)
			b = append(b, " chars; read it with "+ToolReadQuery+" on memory_checkpoints (id "...)
			b = strconv.AppendInt(b, cp.ID, 10)
			b = append(b, ")\n"...)
		}
		b = append(b, coverageLine(in.Coverage, *cp)...)
		b = append(b, '\n')
		b = append(b, "\n# "...)
		b = strconv.AppendInt(b, int64(in.Total), 10)
		b = append(b, " events since checkpoint"...)
	} else {
		b = append(b, "# no checkpoint yet\n\n# "...)
		b = strconv.AppendInt(b, int64(in.Total), 10)
		b = append(b, " events"...)
	}
	switch {
	case l.shownWorst > 0:
		b = append(b, ", showing the most recent "...)
		b = strconv.AppendInt(b, int64(l.shownWorst), 10)
	case in.Total > len(l.rows):
		b = append(b, ", showing the most recent "...)
		b = strconv.AppendInt(b, int64(len(l.rows)), 10)
	}
	if in.Retracted > 0 {
		b = append(b, ", "...)
		b = append(b, RetractedLine(in.Retracted)...)
	}
	b = append(b, " | "...)
	b = append(b, in.Chain.ChainSummary()...)
	if len(l.rows) > 0 || l.csvHeader {
		b = append(b, '\n')
		b = AppendCSVLine(b, resumeColumns)
		for _, r := range l.rows {
			b = append(b, r...)
		}
		b = b[:len(b)-1] // the CSV's last newline: lines are joined, not ended
	}
	if l.dropped > 0 {
		b = append(b, "\n# "...)
		b = strconv.AppendInt(b, int64(l.dropped), 10)
		b = append(b, " older events dropped to fit "...)
		b = strconv.AppendInt(b, int64(in.MaxBytes), 10)
		b = append(b, " bytes; read them with "+ToolReadQuery+" on memory_events"...)
	}
	return string(b)
}

// appendEventLine appends e as one CSV line "id,ts,kind,content\n", each cell
// cut to maxCellChars code points as read_query would cut it.
func appendEventLine(dst []byte, e Event, maxCellChars int) []byte {
	dst, _ = AppendCSVRow(dst, []any{e.ID, e.TS, e.Kind, e.Content}, maxCellChars)
	return dst
}

// cutToBytes returns the longest prefix of s, ending on a code point
// boundary, that takes at most limit bytes, and its length in code points.
func cutToBytes(s string, limit int) (string, int) {
	end, chars := 0, 0
	for end < len(s) {
		_, size := utf8.DecodeRuneInString(s[end:])
		if end+size > limit {
			break
		}
		end += size
		chars++
	}
	return s[:end], chars
}
