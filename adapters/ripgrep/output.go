package ripgrep

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

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

// readMatches parses ripgrep's JSON lines from r into q until EOF, then
// finishes q. It keeps reading after a malformed line, so that ripgrep is
// never blocked on a full pipe; only the first error is kept.
func readMatches(r io.Reader, q *queue) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	var firstErr error
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if firstErr == nil && len(bytes.TrimSpace(line)) > 0 {
			m, ok, perr := parseLine(line)
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

// parseLine decodes one JSON line; ok is false for anything but a match.
// Match lines start with {"type":"match" (serde writes the tag first), so
// the few other lines are skipped without decoding.
func parseLine(line []byte) (domain.LineMatch, bool, error) {
	if !bytes.HasPrefix(line, matchPrefix) && bytes.HasPrefix(line, []byte(`{"type":"`)) {
		return domain.LineMatch{}, false, nil
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
	if m.Start < 0 || m.End < m.Start || m.End > len(m.Text) {
		return domain.LineMatch{}, false, fmt.Errorf("unexpected ripgrep output: match offsets %d..%d outside a %d-byte line", m.Start, m.End, len(m.Text))
	}
	return m, true, nil
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
