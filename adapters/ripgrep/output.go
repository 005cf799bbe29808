package ripgrep

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// message is the part of one `rg --json` line the adapter reads.
type message struct {
	Type string `json:"type"`
	Data struct {
		Lines      jsonText `json:"lines"`
		LineNumber *int     `json:"line_number"`
		Submatches []struct {
			Start int `json:"start"`
			End   int `json:"end"`
		} `json:"submatches"`
	} `json:"data"`
}

// jsonText is ripgrep's arbitrary data: text when it is UTF-8, else base64 bytes.
type jsonText struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (t jsonText) value() (string, error) {
	switch {
	case t.Text != nil:
		return *t.Text, nil
	case t.Bytes != nil:
		b, err := base64.StdEncoding.DecodeString(*t.Bytes)
		return string(b), err
	}
	return "", errors.New("no line text")
}

var matchPrefix = []byte(`{"type":"match"`)

// readBuffer is the size of the output reader's buffer: an output line
// that fits is parsed whole, a longer one as a stream (longline.go).
const readBuffer = 64 << 10

// readMatches parses ripgrep's JSON lines from r into q until EOF, then
// finishes q. It keeps reading after a malformed line, so that ripgrep is
// never blocked on a full pipe; only the first error is kept. maxText
// reports the longest line fed to rg so far (with its line break): no
// line text rg sends back can be longer, and a long output line is read
// with at most that much memory, whatever its submatch list holds.
func readMatches(r io.Reader, q *queue, maxText func() int) {
	br := bufio.NewReaderSize(r, readBuffer)
	var firstErr error
	for {
		var m domain.LineMatch
		var ok bool
		var perr, err error
		if lineIsLong(br) {
			m, ok, perr, err = streamReader{br: br, maxText: maxText()}.longLine()
		} else {
			var line []byte
			line, err = br.ReadSlice('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				m, ok, perr = parseLine(line)
			}
		}
		if firstErr == nil {
			switch {
			case perr != nil:
				firstErr = perr
			case ok:
				q.push(m)
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && firstErr == nil {
				firstErr = fmt.Errorf("read ripgrep output: %w", err)
			}
			q.finish(firstErr)
			return
		}
	}
}

// lineIsLong reports whether the output line at the head of br is longer
// than br's buffer, without consuming anything. At the end of the output
// (or on a read error) it reports false, and ReadSlice then returns the
// rest with the error.
func lineIsLong(br *bufio.Reader) bool {
	scanned := 0
	for {
		buf, _ := br.Peek(br.Buffered())
		if bytes.IndexByte(buf[scanned:], '\n') >= 0 {
			return false
		}
		scanned = len(buf)
		if len(buf) >= br.Size() {
			return true
		}
		if _, err := br.Peek(len(buf) + 1); err != nil {
			return false
		}
	}
}

// parseLine decodes one JSON line; ok is false for anything but a match.
// Match lines start with {"type":"match" (serde writes the tag first), so
// the few other lines are skipped without decoding.
func parseLine(line []byte) (domain.LineMatch, bool, error) {
	if !bytes.HasPrefix(line, matchPrefix) && bytes.HasPrefix(line, []byte(`{"type":"`)) {
		return domain.LineMatch{}, false, nil
	}
	if m, ok := quickMatch(line); ok {
		return m, true, checkMatch(m)
	}
	var msg message
	if err := json.Unmarshal(line, &msg); err != nil {
		return domain.LineMatch{}, false, fmt.Errorf("unexpected ripgrep output: %v", err)
	}
	if msg.Type != "match" {
		return domain.LineMatch{}, false, nil
	}
	if msg.Data.LineNumber == nil || *msg.Data.LineNumber < 1 {
		return domain.LineMatch{}, false, errors.New("unexpected ripgrep output: a match without a line number")
	}
	text, err := msg.Data.Lines.value()
	if err != nil {
		return domain.LineMatch{}, false, fmt.Errorf("unexpected ripgrep output: %v", err)
	}
	m := domain.LineMatch{Index: *msg.Data.LineNumber - 1, Text: strings.TrimSuffix(text, "\n")}
	// A line ripgrep matched always has a first submatch, except for text
	// anchors (refused or rewritten by perLine); report its start then.
	if len(msg.Data.Submatches) > 0 {
		m.Start, m.End = msg.Data.Submatches[0].Start, msg.Data.Submatches[0].End
	}
	return m, true, checkMatch(m)
}

func checkMatch(m domain.LineMatch) error {
	if m.Index < 0 || m.Start < 0 || m.End < m.Start || m.End > len(m.Text) {
		return fmt.Errorf("unexpected ripgrep output: match offsets %d..%d outside the %d-byte line %d", m.Start, m.End, len(m.Text), m.Index+1)
	}
	return nil
}

// quickMatch reads a match line laid out as ripgrep writes it (serde keeps
// the field order: path, lines, line_number, absolute_offset, submatches)
// and stops after the first submatch. encoding/json would decode every
// submatch, and a broad pattern has dozens per line: decoding them made
// the search many times slower than ripgrep itself. Any other layout
// (bytes instead of text, say) returns false, for the full decoder.
func quickMatch(line []byte) (m domain.LineMatch, ok bool) {
	const linesKey, numberKey, submatchesKey, firstKey = `"lines":{"text":`, `},"line_number":`, `"submatches":[`, `{"match":{"text":`
	i := bytes.Index(line, []byte(linesKey))
	if i < 0 {
		return m, false
	}
	text, rest, ok := jsonString(line[i+len(linesKey):])
	if !ok || !bytes.HasPrefix(rest, []byte(numberKey)) {
		return m, false
	}
	number, rest, ok := jsonInt(rest[len(numberKey):])
	if !ok {
		return m, false
	}
	m = domain.LineMatch{Index: number - 1, Text: strings.TrimSuffix(text, "\n")}
	if i = bytes.Index(rest, []byte(submatchesKey)); i < 0 {
		return m, false
	}
	rest = rest[i+len(submatchesKey):]
	if bytes.HasPrefix(rest, []byte("]")) {
		return m, true // see parseLine: no offsets, report the line's start
	}
	if !bytes.HasPrefix(rest, []byte(firstKey)) {
		return m, false
	}
	if _, rest, ok = jsonString(rest[len(firstKey):]); !ok || !bytes.HasPrefix(rest, []byte(`},"start":`)) {
		return m, false
	}
	if m.Start, rest, ok = jsonInt(rest[len(`},"start":`):]); !ok || !bytes.HasPrefix(rest, []byte(`,"end":`)) {
		return m, false
	}
	m.End, _, ok = jsonInt(rest[len(`,"end":`):])
	return m, ok
}

// jsonString reads the JSON string at the start of b. Escapes other than
// the short ones and \u of a BMP character go to encoding/json.
func jsonString(b []byte) (s string, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	end := 1
	for end < len(b) && b[end] != '"' {
		if b[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(b) {
		return "", nil, false
	}
	raw := b[1:end]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), b[end+1:], true
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			r, err := strconv.ParseUint(string(raw[i+1:min(i+5, len(raw))]), 16, 32)
			if err != nil || i+5 > len(raw) || utf16.IsSurrogate(rune(r)) {
				return jsonStringSlow(b[:end+1], b[end+1:])
			}
			out = utf8.AppendRune(out, rune(r))
			i += 4
		default:
			return jsonStringSlow(b[:end+1], b[end+1:])
		}
	}
	return string(out), b[end+1:], true
}

func jsonStringSlow(quoted, rest []byte) (string, []byte, bool) {
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", nil, false
	}
	return s, rest, true
}

// jsonInt reads the non-negative integer at the start of b.
func jsonInt(b []byte) (n int, rest []byte, ok bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i < 12 {
		n = n*10 + int(b[i]-'0')
		i++
	}
	return n, b[i:], i > 0
}

// queue hands matches from the output reader to the caller's goroutine.
// It never blocks the reader: if it did while the caller is blocked
// writing ripgrep's input, ripgrep would block on its output and the three
// would deadlock. It stays small because the caller drains it between
// writes, so it never holds more than the matches of the input in flight.
type queue struct {
	mu    sync.Mutex
	items []domain.LineMatch
	done  bool
	err   error
	ready chan struct{} // signalled after every push and at finish
}

func newQueue() *queue { return &queue{ready: make(chan struct{}, 1)} }

func (q *queue) push(m domain.LineMatch) {
	q.mu.Lock()
	q.items = append(q.items, m)
	q.mu.Unlock()
	q.signal()
}

func (q *queue) finish(err error) {
	q.mu.Lock()
	q.done, q.err = true, err
	q.mu.Unlock()
	q.signal()
}

func (q *queue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take returns the queued matches and whether the reader has finished (and
// how), handing back spare as the next buffer so that memory is reused.
func (q *queue) take(spare []domain.LineMatch) (items []domain.LineMatch, done bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items, q.items = q.items, spare[:0]
	return items, q.done, q.err
}
