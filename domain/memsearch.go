package domain

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// search_memory's full-text index. The index is a server object: an FTS5
// table the server keeps in step with memory_events and
// memory_checkpoints, inside the transaction of every append. An event is
// indexed under its id, a checkpoint's summary under minus its id, so one
// table ranks both with the same statistics. The index holds copies of the
// texts only; the chain hashes the events, never the index.
const (
	// MemoryIndex is the FTS5 table's name.
	MemoryIndex = "memory_fts"
	// SourceEvent and SourceCheckpoint name where a search hit comes from.
	SourceEvent      = "event"
	SourceCheckpoint = "checkpoint"
)

// memoryIndexShadows are the tables FTS5 keeps for [MemoryIndex].
var memoryIndexShadows = []string{"_data", "_idx", "_content", "_docsize", "_config"}

// isMemoryIndexTable reports whether name is the index or one of its
// shadow tables, ignoring ASCII letter case.
func isMemoryIndexTable(name string) bool {
	if equalFoldASCII(name, MemoryIndex) {
		return true
	}
	if len(name) <= len(MemoryIndex) || !equalFoldASCII(name[:len(MemoryIndex)], MemoryIndex) {
		return false
	}
	return containsFold(memoryIndexShadows, name[len(MemoryIndex):])
}

// IndexedText is what the index holds for an event: its content, except a
// checkpoint's seal, which is indexed empty (its text is a hash; the
// checkpoint's own summary is indexed under the checkpoint). A seal is
// recognised on the stored row as it is (kind [SealKind], content
// starting with [SealLead] and holding [SealMark] after it), a rule SQL
// can repeat exactly for a rebuild. The seal marker ([IsSealMarker]) is
// indexed empty too. Every event has a row, so the index's
// event count is the table's.
func IndexedText(e Event) string {
	rest, ok := strings.CutPrefix(e.Content, SealLead)
	if ok && e.Kind == SealKind && strings.Contains(rest, SealMark) {
		return ""
	}
	if IsSealMarker(e) {
		return "" // the server's own words, not the memory's
	}
	return e.Content
}

// The caps on a search_memory query, checked before it reaches the index:
// the query text, its terms, and the kinds it filters by. MaxRankedMatches
// bounds the work of one ranking: BM25 reads every matching row's length,
// so when more rows match, the newest MaxRankedMatches events (and every
// checkpoint) are ranked, and the result says so.
const (
	MaxMemoryQueryBytes = 1000
	MaxMemoryQueryTerms = 16
	MaxMemoryKinds      = 32
	MaxRankedMatches    = 2_000
)

// MemoryQuery is a search_memory query, checked and turned into FTS5
// syntax. The agent's text is never passed as FTS5 syntax: every word and
// every "quoted phrase" becomes an FTS5 string (so AND, OR, NOT, NEAR,
// column filters and punctuation are plain words), a word ending in '*'
// a prefix query. The rows that hold every term come first (All), then
// those that hold some (Any), each ranked by BM25.
type MemoryQuery struct {
	// All is the FTS5 expression matching the rows that hold every term.
	All string
	// Match is the one matching the rows that hold any term (the same as
	// All for one term); snippets mark its matches.
	Match string
	// Terms are the words and phrases, as the agent wrote them.
	Terms []string
	// Prefix reports that a term is a prefix query (a word ending in
	// '*'), which the index expands over every word it holds each time
	// the expression is run.
	Prefix bool
}

// ParseMemoryQuery checks q and builds its FTS5 expression.
//
// Errors: [ErrInvalidArgument] for a query that is empty, too long, has
// more than [MaxMemoryQueryTerms] terms, an unclosed '"', or no letter or
// digit to search for.
func ParseMemoryQuery(q string) (MemoryQuery, error) {
	if len(q) > MaxMemoryQueryBytes {
		return MemoryQuery{}, Errorf(ErrInvalidArgument, "query is %d bytes; at most %d are searched: use a few distinctive words", len(q), MaxMemoryQueryBytes)
	}
	if !utf8.ValidString(q) {
		return MemoryQuery{}, Errorf(ErrInvalidArgument, "query is not valid UTF-8")
	}
	// Control characters (NUL would end FTS5's string early) separate
	// words like spaces.
	q = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, q)
	var out MemoryQuery
	var parts []string
	add := func(term string, phrase bool) error {
		prefix := !phrase && strings.HasSuffix(term, "*")
		word := strings.TrimRight(term, "*")
		if !strings.ContainsFunc(word, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			return nil // punctuation alone: the tokenizer would drop it
		}
		if len(out.Terms) == MaxMemoryQueryTerms {
			return Errorf(ErrInvalidArgument, "query has more than %d words or phrases; keep the %d most distinctive", MaxMemoryQueryTerms, MaxMemoryQueryTerms)
		}
		out.Terms = append(out.Terms, term)
		s := `"` + strings.ReplaceAll(word, `"`, `""`) + `"`
		if prefix {
			s += "*"
			out.Prefix = true
		}
		parts = append(parts, s)
		return nil
	}
	rest := q
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return MemoryQuery{}, Errorf(ErrInvalidArgument, "query has an unclosed '\"': close the phrase or remove the quote")
			}
			if err := add(rest[1:1+end], true); err != nil {
				return MemoryQuery{}, err
			}
			rest = rest[2+end:]
			continue
		}
		end := strings.IndexFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
		if end < 0 {
			end = len(rest)
		}
		if err := add(rest[:end], false); err != nil {
			return MemoryQuery{}, err
		}
		rest = rest[end:]
	}
	if len(parts) == 0 {
		return MemoryQuery{}, Errorf(ErrInvalidArgument, "query has no word to search for: pass words or \"a phrase\" (letters or digits)")
	}
	out.All, out.Match = strings.Join(parts, " AND "), strings.Join(parts, " OR ")
	return out, nil
}

// ParseSince checks search_memory's since argument: a date (2026-09-13)
// or a timestamp as events carry it (2026-09-13T10:11:12Z). It returns the
// smallest ts the search keeps, in the events' own format, so the store
// compares strings.
func ParseSince(since string) (string, error) {
	since = StripSpace(since)
	if since == "" {
		return "", nil
	}
	if t, err := time.Parse(time.DateOnly, since); err == nil {
		return FormatTS(t), nil
	}
	if t, err := time.Parse(time.RFC3339, since); err == nil {
		return FormatTS(t), nil
	}
	return "", Errorf(ErrInvalidArgument, "since must be a date (2026-09-13) or a UTC timestamp (2026-09-13T10:11:12Z), got %s", Quote(since))
}

// MemorySearch is one checked search_memory request, as the store runs it.
type MemorySearch struct {
	// Query is the checked query.
	Query MemoryQuery
	// Kinds keeps only hits of these kinds (a checkpoint's summary is of
	// kind [SourceCheckpoint]); none keeps every kind.
	Kinds []string
	// Session keeps only hits of that session; "" keeps every session.
	Session string
	// Since keeps only hits with ts at or after it; "" keeps every one.
	Since string
	// Limit is the most hits returned; the store looks for one more, to
	// say whether more exist.
	Limit int
}

// MemorySearchResult is what a search found beyond its hits.
type MemorySearchResult struct {
	// More reports that more rows matched than Limit.
	More bool
	// Lag counts the events the index has not taken in yet (another
	// program appended them).
	Lag int64
	// Matched is how many events matched the widest expression ranked,
	// counted up to [MaxRankedMatches], and Ranked how many of them were
	// ranked (Matched). Unranked reports that more events matched than
	// were ranked: they are not counted (a count would walk every match).
	Matched, Ranked int64
	Unranked        bool
	// Retracted counts the retracted events that matched, which are never
	// hits.
	Retracted int64
}

// MemoryHit is one search_memory result.
type MemoryHit struct {
	// Source is [SourceEvent] or [SourceCheckpoint].
	Source string
	// ID is the event's or checkpoint's id.
	ID int64
	// TS, Kind and Session are the row's; a checkpoint's Kind is
	// [SourceCheckpoint].
	TS, Kind, Session string
	// Snippet is the text around the best match, the matched terms marked
	// with [ and ].
	Snippet string
}

// MemoryHitColumns is search_memory's CSV header.
var MemoryHitColumns = []string{"source", "id", "ts", "kind", "session", "snippet"}

// Row is the hit as a CSV row.
func (h MemoryHit) Row() []any {
	return []any{h.Source, h.ID, h.TS, h.Kind, h.Session, h.Snippet}
}

// RecallField is an event column whose values a prompt argument completes
// from.
type RecallField int

// The fields completions offer.
const (
	// RecallKind is an event's kind.
	RecallKind RecallField = iota + 1
	// RecallSession is an event's session id.
	RecallSession
)

// RecallScan is how many of the newest events a completion looks at: a
// completion answers while the user types, so it never scans the whole
// log. MaxCompletions is how many values it returns (MCP's own cap).
const (
	RecallScan     = 5000
	MaxCompletions = 100
)
