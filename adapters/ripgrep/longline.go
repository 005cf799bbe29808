package ripgrep

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// `rg --json` lists every submatch of a line. A long value that matches at
// every character (pattern "." or "\w" over an 8 MiB value) comes back as
// one output line of ~400 MB, and reading it whole cost 390 MB to 850 MB of
// RSS. The port needs only the line and its first match, so an output line
// longer than the reader's buffer is parsed as a stream instead: the line's
// text is decoded into a buffer no larger than the longest line fed to rg,
// the first submatch's offsets are read, and the rest of the line is
// skipped chunk by chunk without being kept. rg has no option to cut the
// submatch list: its JSON printer ignores --max-columns (checked with
// ripgrep 13), and --max-count counts lines, not matches.

// errOutput is ripgrep output this reader does not understand.
var errOutput = errors.New("unexpected ripgrep output")

// streamReader parses one long output line from br with bounded memory.
type streamReader struct {
	br *bufio.Reader
	// maxText is the longest line text rg can send back: the longest line
	// fed to it, plus its line break.
	maxText int
}

// longLine reads the output line at the head of br, which is longer than
// br's buffer, and returns its match (ok false for any other message). It
// always consumes the whole line, up to and including its '\n', unless
// reading fails.
func (s streamReader) longLine() (m domain.LineMatch, ok bool, perr, ioErr error) {
	head, err := s.br.Peek(len(matchPrefix))
	if err != nil {
		return m, false, nil, err
	}
	if !bytes.Equal(head, matchPrefix) {
		return m, false, nil, s.skipLine()
	}
	m, perr = s.match()
	if perr != nil && !errors.Is(perr, errOutput) { // an I/O error
		if errors.Is(perr, io.EOF) {
			perr = io.ErrUnexpectedEOF // the output ended inside the match
		}
		return m, false, nil, perr
	}
	if ioErr = s.skipLine(); ioErr != nil {
		return m, false, perr, ioErr
	}
	if perr != nil {
		return m, false, perr, nil
	}
	return m, true, checkMatch(m), nil
}

// match reads {"type":"match","data":{...}} up to the end of the first
// submatch, in whatever order the data's fields come.
func (s streamReader) match() (domain.LineMatch, error) {
	var m domain.LineMatch
	if _, err := s.br.Discard(len(matchPrefix)); err != nil {
		return m, err
	}
	if err := s.expect(','); err != nil {
		return m, err
	}
	if k, err := s.key(); err != nil {
		return m, err
	} else if k != "data" {
		return m, fmt.Errorf("%w: no data", errOutput)
	}
	if err := s.expect('{'); err != nil {
		return m, err
	}
	var haveText, haveNumber bool
	for {
		k, err := s.key()
		if err != nil {
			return m, err
		}
		switch k {
		case "lines":
			if m.Text, err = s.lines(); err != nil {
				return m, err
			}
			haveText = true
		case "line_number":
			n, err := s.int()
			if err != nil {
				return m, err
			}
			m.Index, haveNumber = n-1, true
		case "submatches":
			if !haveText || !haveNumber {
				return m, fmt.Errorf("%w: submatches before the line", errOutput)
			}
			return m, s.firstSubmatch(&m)
		default:
			if err := s.skipValue(); err != nil {
				return m, err
			}
		}
		if err := s.expect(','); err != nil {
			return m, fmt.Errorf("%w: a match without submatches", errOutput)
		}
	}
}

// lines reads {"text":"..."} or {"bytes":"<base64>"}, without its '\n'.
func (s streamReader) lines() (string, error) {
	if err := s.expect('{'); err != nil {
		return "", err
	}
	k, err := s.key()
	if err != nil {
		return "", err
	}
	var text []byte
	switch k {
	case "text":
		text, err = s.str(s.maxText)
	case "bytes":
		if text, err = s.str(base64.StdEncoding.EncodedLen(s.maxText)); err == nil {
			n, derr := base64.StdEncoding.Decode(text, text)
			text, err = text[:n], errOrOutput(derr, "bad base64")
		}
	default:
		return "", fmt.Errorf("%w: lines without text", errOutput)
	}
	if err != nil {
		return "", err
	}
	if err := s.expect('}'); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(text, []byte("\n"))), nil
}

// firstSubmatch reads [ {"match":...,"start":N,"end":N} and stops there;
// an empty list leaves the offsets at 0 (see parseLine).
func (s streamReader) firstSubmatch(m *domain.LineMatch) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if c, err := s.peek(); err != nil || c == ']' {
		return err
	}
	if err := s.expect('{'); err != nil {
		return err
	}
	var haveStart, haveEnd bool
	for !haveStart || !haveEnd {
		k, err := s.key()
		if err != nil {
			return err
		}
		switch k {
		case "start":
			m.Start, err = s.int()
			haveStart = true
		case "end":
			m.End, err = s.int()
			haveEnd = true
		default:
			err = s.skipValue()
		}
		if err != nil {
			return err
		}
		if !haveStart || !haveEnd {
			if err := s.expect(','); err != nil {
				return err
			}
		}
	}
	return nil
}

// skipLine discards everything up to and including the next '\n'.
func (s streamReader) skipLine() error {
	for {
		_, err := s.br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

func (s streamReader) peek() (byte, error) {
	b, err := s.br.Peek(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// expect consumes the byte c (rg writes compact JSON: no spaces).
func (s streamReader) expect(c byte) error {
	got, err := s.br.ReadByte()
	if err != nil {
		return err
	}
	if got != c {
		return fmt.Errorf("%w: %q where %q was expected", errOutput, got, c)
	}
	return nil
}

// key reads "name": and returns name.
func (s streamReader) key() (string, error) {
	k, err := s.str(64)
	if err != nil {
		return "", err
	}
	return string(k), s.expect(':')
}

// int reads a non-negative integer.
func (s streamReader) int() (int, error) {
	var digits []byte
	for {
		c, err := s.peek()
		if err != nil {
			return 0, err
		}
		if c < '0' || c > '9' || len(digits) > 18 {
			break
		}
		digits = append(digits, c)
		_, _ = s.br.ReadByte()
	}
	n, err := strconv.Atoi(string(digits))
	return n, errOrOutput(err, "bad number")
}

// str reads a JSON string and returns it decoded; a string whose decoded
// form is longer than max is an error (rg never sends one back).
func (s streamReader) str(max int) ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	var out []byte
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return nil, err
		}
		switch {
		case c == '"':
			return out, nil
		case c == '\\':
			if out, err = s.escape(out); err != nil {
				return nil, err
			}
		default:
			out = append(out, c)
		}
		if len(out) > max {
			return nil, fmt.Errorf("%w: a string longer than %d bytes, more than any line searched", errOutput, max)
		}
	}
}

// escape decodes the escape after a backslash and appends it to out.
func (s streamReader) escape(out []byte) ([]byte, error) {
	c, err := s.br.ReadByte()
	if err != nil {
		return nil, err
	}
	switch c {
	case '"', '\\', '/':
		return append(out, c), nil
	case 'n':
		return append(out, '\n'), nil
	case 't':
		return append(out, '\t'), nil
	case 'r':
		return append(out, '\r'), nil
	case 'b':
		return append(out, '\b'), nil
	case 'f':
		return append(out, '\f'), nil
	case 'u':
		r, err := s.hex4()
		if err != nil {
			return nil, err
		}
		if utf16.IsSurrogate(r) {
			// A pair: \uD83D\uDE42.
			if s.expect('\\') != nil || s.expect('u') != nil {
				return nil, fmt.Errorf("%w: a lone surrogate", errOutput)
			}
			lo, err := s.hex4()
			if err != nil {
				return nil, err
			}
			r = utf16.DecodeRune(r, lo)
		}
		return utf8.AppendRune(out, r), nil
	}
	return nil, fmt.Errorf("%w: bad escape \\%c", errOutput, c)
}

func (s streamReader) hex4() (rune, error) {
	var b [4]byte
	if _, err := io.ReadFull(s.br, b[:]); err != nil {
		return 0, err
	}
	r, err := strconv.ParseUint(string(b[:]), 16, 32)
	return rune(r), errOrOutput(err, "bad \\u escape")
}

// skipValue consumes one JSON value without keeping it.
func (s streamReader) skipValue() error {
	depth := 0
	for {
		c, err := s.peek()
		if err != nil {
			return err
		}
		switch c {
		case '"':
			if err := s.skipString(); err != nil {
				return err
			}
		case '{', '[':
			depth++
			_, _ = s.br.ReadByte()
		case '}', ']':
			if depth == 0 {
				return nil // the end of the enclosing value
			}
			depth--
			_, _ = s.br.ReadByte()
		case ',':
			if depth == 0 {
				return nil
			}
			_, _ = s.br.ReadByte()
		case '\n':
			return fmt.Errorf("%w: the line ended inside a value", errOutput)
		default:
			_, _ = s.br.ReadByte()
		}
	}
}

// skipString consumes a JSON string without keeping it.
func (s streamReader) skipString() error {
	if err := s.expect('"'); err != nil {
		return err
	}
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			return err
		}
		switch c {
		case '"':
			return nil
		case '\\':
			if _, err := s.br.ReadByte(); err != nil {
				return err
			}
		}
	}
}

// errOrOutput keeps an I/O error as is and words any other as errOutput.
func errOrOutput(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return err
	}
	return fmt.Errorf("%w: %s", errOutput, what)
}
