package engine

import "bytes"

// This file holds Go ports of the SQLite built-ins whose single call costs
// more than linear time in its arguments (see bounded.go for why and how
// they replace SQLite's own on agent connections). Each port follows
// SQLite 3.54's C code (func.c) step by step, so that it answers exactly
// what SQLite answers for every input, and adds one thing: it counts the
// work it does and stops once the statement has been interrupted.

// checkEvery is how many units of work (bytes compared, characters
// stepped) a port does between two looks at the interrupt flag: about a
// millisecond's work, so a call stops within milliseconds of its deadline
// while the look itself costs nothing measurable.
const checkEvery = 1 << 18

// stopper counts the work of one function call and asks interrupted,
// every checkEvery units, whether the statement was interrupted.
type stopper struct {
	work        int
	interrupted func() bool
	stopped     bool
}

// tick adds n units of work and reports whether the call must stop.
func (s *stopper) tick(n int) bool {
	s.work += n
	if s.work < checkEvery {
		return s.stopped
	}
	s.work = 0
	if !s.stopped && s.interrupted != nil && s.interrupted() {
		s.stopped = true
	}
	return s.stopped
}

// instrPos is instr(): the 1-based position of needle in hay, in
// characters when isText (positions start at each byte that is not a
// UTF-8 continuation byte, as in SQLite), in bytes otherwise; 0 when
// absent, 1 for an empty needle.
func instrPos(hay, needle []byte, isText bool, st *stopper) int {
	if len(needle) == 0 {
		return 1
	}
	n, i := 1, 0
	first := needle[0]
	for len(needle) <= len(hay)-i {
		if hay[i] == first {
			if st.tick(len(needle)) {
				return 0
			}
			if bytes.Equal(hay[i:i+len(needle)], needle) {
				break
			}
		} else if st.tick(1) {
			return 0
		}
		n++
		for {
			i++
			if !isText || i >= len(hay) || hay[i]&0xc0 != 0x80 {
				break
			}
		}
	}
	if len(needle) > len(hay)-i {
		return 0
	}
	return n
}

// replaceCount walks str as SQLite's replace() does (left to right, a
// match consumes the pattern's bytes) and calls emit for each stretch of
// output: a piece of str, or rep for a match. pat is not empty.
func replaceWalk(str, pat []byte, st *stopper, emit func(piece []byte, match bool)) bool {
	start, i := 0, 0
	for i <= len(str)-len(pat) {
		if str[i] != pat[0] {
			i++
			if st.tick(1) {
				return false
			}
			continue
		}
		if st.tick(len(pat)) {
			return false
		}
		if !bytes.Equal(str[i:i+len(pat)], pat) {
			i++
			continue
		}
		emit(str[start:i], false)
		emit(nil, true)
		i += len(pat)
		start = i
	}
	emit(str[start:], false)
	return true
}

// trimSet cuts a trim() character set where SQLite's ends: at the first
// NUL byte.
func trimSet(set []byte) []byte {
	if i := bytes.IndexByte(set, 0); i >= 0 {
		return set[:i]
	}
	return set
}

// nextTrimChar returns the character of set at i and where the next one
// starts: as in SQLite, a byte >= 0xc0 takes the continuation bytes after
// it, any other byte is a character alone.
func nextTrimChar(set []byte, i int) (c []byte, next int) {
	j := i + 1
	if set[i] >= 0xc0 {
		for j < len(set) && set[j]&0xc0 == 0x80 {
			j++
		}
	}
	return set[i:j], j
}

// trimBytes is trim()/ltrim()/rtrim() with a character set: it removes
// characters of set from the left (left) and the right (right) of in and
// returns what is left as in[lo:hi]. ok is false when the call was
// interrupted. The set is walked in place, never split into a list:
// SQLite's list of a set of millions of characters costs 12 bytes each.
func trimBytes(in, set []byte, left, right bool, st *stopper) (lo, hi int, ok bool) {
	lo, hi = 0, len(in)
	if len(set) == 0 {
		return lo, hi, true
	}
	if left {
		for lo < hi {
			k := trimMatch(set, func(c []byte) bool { return bytes.HasPrefix(in[lo:hi], c) }, st)
			if k < 0 || st.stopped {
				break
			}
			lo += k
		}
	}
	if right {
		for lo < hi && !st.stopped {
			k := trimMatch(set, func(c []byte) bool { return bytes.HasSuffix(in[lo:hi], c) }, st)
			if k < 0 || st.stopped {
				break
			}
			hi -= k
		}
	}
	return lo, hi, !st.stopped
}

// trimMatch returns the length of the first character of set that at
// matches, or -1. SQLite tries them in order, so the first one wins.
func trimMatch(set []byte, at func([]byte) bool, st *stopper) int {
	for i := 0; i < len(set); {
		var c []byte
		c, i = nextTrimChar(set, i)
		if st.tick(len(c)) {
			return 0
		}
		if at(c) {
			return len(c)
		}
	}
	return -1
}

// isHex is SQLite's sqlite3Isxdigit.
func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// hexToInt is SQLite's sqlite3HexToInt for a hex digit.
func hexToInt(h byte) byte {
	h += 9 * (1 & (h >> 6))
	return h & 0xf
}

// containsChar is SQLite's strContainsChar: whether the UTF-8 text pass
// holds the character ch.
func containsChar(pass []byte, ch uint32, st *stopper) bool {
	for i := 0; i < len(pass); {
		start := i
		c := utf8Read(pass, &i)
		st.tick(i - start)
		if c == ch {
			return true
		}
	}
	return false
}

// unhexInto is unhex(X, Y) (SQLite's unhexFunc): it decodes the hex digits
// of the NUL-terminated hexZ into dst, skipping characters of pass between
// pairs of digits. It returns the bytes written, valid false for a NULL
// result, and stopped when the call was interrupted.
func unhexInto(dst, hexZ, pass []byte, st *stopper) (n int, valid, stopped bool) {
	z := 0
	for {
		c := at(hexZ, z)
		if c == 0 {
			return n, true, false
		}
		for !isHex(c) {
			ch := utf8Read(hexZ, &z)
			if !containsChar(pass, ch, st) {
				return 0, false, st.stopped
			}
			if st.stopped {
				return 0, false, true
			}
			c = at(hexZ, z)
			if c == 0 {
				return n, true, false
			}
		}
		z++
		d := at(hexZ, z)
		z++
		if !isHex(d) {
			return 0, false, false
		}
		dst[n] = hexToInt(c)<<4 | hexToInt(d)
		n++
		if st.tick(2) {
			return 0, false, true
		}
	}
}
