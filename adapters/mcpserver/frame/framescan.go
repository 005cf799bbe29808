package frame

import (
	"bytes"
	"encoding/json"
)

// maxCapture bounds each field the scanner keeps from a frame it skips.
const maxCapture = 128

// frameFields are the few fields of a JSON-RPC frame needed to answer it
// without reading the rest: its id (raw JSON, nil when absent or unusable),
// its method and, for tools/call, the tool's name.
type frameFields struct {
	id    json.RawMessage
	hasID bool // the frame has an "id" key, whatever its value
	// response marks a frame with a "result" or "error" and no "method":
	// an answer to the server, never answered itself.
	response bool
	method   string
	tool     string
}

// frameScanner walks a JSON-RPC frame byte by byte in constant memory and
// keeps only the id, the method and params.name. It serves frames too large
// to be handed to the SDK: those must still be answered with their id.
//
// It tracks just enough of JSON's grammar for that: strings and escapes,
// nesting, and whether the next string of an object is a key. Malformed
// input never makes it fail; it merely finds fewer fields.
type frameScanner struct {
	depth    int
	kinds    [3]byte // '{' or '[' of the containers at depth 1..3
	inString bool
	escape   bool
	wantKey  bool // the next string at this depth is an object key
	isKey    bool // the string being read is a key
	key      [3][]byte
	keyOver  [3]bool // a key longer than maxCapture: matches nothing
	capture  *[]byte // where the current value's bytes go, if wanted
	scalar   bool    // capturing a bare value (number, literal): ends at a delimiter
	id       []byte
	method   []byte
	tool     []byte
	// seen counts the values found for id, method and the tool's name: a
	// field given twice is ambiguous and left out.
	idSeen, methodSeen, toolSeen int
	answerSeen                   bool // a top-level "result" or "error" key
}

// feed scans the next bytes of the frame.
func (s *frameScanner) feed(p []byte) {
	for _, c := range p {
		s.step(c)
	}
}

func (s *frameScanner) step(c byte) {
	if s.inString {
		s.keep(c)
		switch {
		case s.escape:
			s.escape = false
		case c == '\\':
			s.escape = true
		case c == '"':
			s.inString = false
			if s.isKey {
				s.isKey = false
				s.keyEnded()
			} else {
				s.capture = nil
			}
		}
		return
	}
	if s.scalar {
		switch c {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			s.scalar, s.capture = false, nil
		default:
			s.keep(c)
			return
		}
	}
	switch c {
	case '"':
		s.inString = true
		if s.wantKey {
			s.wantKey, s.isKey = false, true
			if d := s.depth - 1; d >= 0 && d < len(s.key) {
				s.key[d], s.keyOver[d] = s.key[d][:0], false
			}
			return
		}
		s.startValue()
		s.keep(c)
	case '{', '[':
		s.capture = nil // an object or array is no id, method or name
		if s.depth == 1 && s.kinds[0] == '{' && s.keyIs(0, "id") {
			s.idSeen++ // an id that is an object or array: present, unusable
			s.id = append(s.id[:0], '!')
		}
		s.depth++
		if s.depth <= len(s.kinds) {
			s.kinds[s.depth-1] = c
		}
		s.wantKey = c == '{'
	case '}', ']':
		// A closer with nothing open is malformed input, not a reason to
		// index kinds or key below zero: depth never goes under 0.
		if s.depth > 0 {
			s.depth--
		}
		s.wantKey = false
	case ',':
		s.wantKey = s.depth >= 1 && s.depth <= len(s.kinds) && s.kinds[s.depth-1] == '{'
	case ':':
		s.wantKey = false
	case ' ', '\t', '\r', '\n':
	default:
		s.startValue()
		s.scalar = s.capture != nil
		s.keep(c)
	}
}

// keep adds c to the key or value being captured.
func (s *frameScanner) keep(c byte) {
	if s.isKey {
		if d := s.depth - 1; d >= 0 && d < len(s.key) {
			if len(s.key[d]) < maxCapture {
				s.key[d] = append(s.key[d], c)
			} else {
				s.keyOver[d] = true
			}
		}
		return
	}
	if s.capture == nil {
		return
	}
	if len(*s.capture) >= maxCapture {
		// Too long to be an id, a method or a tool name: spoil the
		// field so fields() drops it, and keep nothing more of it.
		*s.capture = append((*s.capture)[:0], '!')
		s.capture = nil
		return
	}
	*s.capture = append(*s.capture, c)
}

// startValue decides whether the value starting here is one of the fields
// kept: id and method at the top level, name inside params.
func (s *frameScanner) startValue() {
	s.capture = nil
	switch {
	case s.depth == 1 && s.kinds[0] == '{' && s.keyIs(0, "id"):
		s.id, s.capture = s.id[:0], &s.id
		s.idSeen++
	case s.depth == 1 && s.kinds[0] == '{' && s.keyIs(0, "method"):
		s.method, s.capture = s.method[:0], &s.method
		s.methodSeen++
	case s.depth == 2 && s.kinds[0] == '{' && s.kinds[1] == '{' && s.keyIs(0, "params") && s.keyIs(1, "name"):
		s.tool, s.capture = s.tool[:0], &s.tool
		s.toolSeen++
	}
}

// keyEnded decodes a key spelled with escapes ("\u0069d" is "id"), as the
// SDK reads it, and notes a top-level "result" or "error": a response,
// which is never answered.
func (s *frameScanner) keyEnded() {
	d := s.depth - 1
	if d < 0 || d >= len(s.key) || s.keyOver[d] {
		return
	}
	k := s.key[d]
	if bytes.IndexByte(k, '\\') >= 0 {
		var name string
		if json.Unmarshal(append([]byte{'"'}, k...), &name) == nil && len(name) < maxCapture {
			s.key[d] = append(append(k[:0], name...), '"')
		}
	}
	if d == 0 && s.kinds[0] == '{' && (s.keyIs(0, "result") || s.keyIs(0, "error")) {
		s.answerSeen = true
	}
}

func (s *frameScanner) keyIs(d int, name string) bool {
	// A key is kept with its closing quote: the scanner keeps every byte it
	// reads inside a string.
	return !s.keyOver[d] && string(s.key[d]) == name+`"`
}

// fields returns what the scan found. A field longer than maxCapture, not
// valid JSON of its kind, or given twice, is left out.
func (s *frameScanner) fields() frameFields {
	f := frameFields{hasID: s.idSeen > 0, response: s.answerSeen && s.methodSeen == 0}
	if s.idSeen == 1 && len(s.id) > 0 && json.Valid(s.id) && echoable(s.id) {
		f.id = json.RawMessage(append([]byte(nil), s.id...))
	}
	if s.methodSeen == 1 {
		_ = json.Unmarshal(s.method, &f.method)
	}
	if s.toolSeen == 1 {
		_ = json.Unmarshal(s.tool, &f.tool)
	}
	return f
}
