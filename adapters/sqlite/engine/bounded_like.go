package engine

// LIKE and GLOB, ported from SQLite 3.54's patternCompare (func.c). The
// pattern and the string are NUL-terminated as in C: each slice ends with
// the terminator SQLite puts after a value's text, and an embedded NUL ends
// the text there, as it does for SQLite.

// Results of patternCompare, as in SQLite, plus likeStopped for a call
// that was interrupted (any result but likeNoMatch ends the search).
const (
	likeMatch           = 0
	likeNoMatch         = 1
	likeNoWildcardMatch = 2
	likeStopped         = 3
)

// compareInfo is SQLite's compareInfo: the wildcard characters of LIKE or
// GLOB and whether ASCII case is ignored.
type compareInfo struct {
	matchAll, matchOne, matchSet byte
	noCase                       bool
}

var (
	likeInfo = compareInfo{matchAll: '%', matchOne: '_', noCase: true}
	globInfo = compareInfo{matchAll: '*', matchOne: '?', matchSet: '['}
)

// utf8Trans1 is SQLite's sqlite3Utf8Trans1: the payload bits of a lead
// byte >= 0xc0.
var utf8Trans1 = [64]byte{
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x00, 0x01, 0x02, 0x03, 0x00, 0x01, 0x00, 0x00,
}

// utf8Read is sqlite3Utf8Read: it decodes the character at z[*i] the way
// SQLite does (lenient, U+FFFD for overlong forms and surrogates) and
// advances *i. Past the end it reads the terminator, 0.
func utf8Read(z []byte, i *int) uint32 {
	if *i >= len(z) {
		*i++
		return 0
	}
	c := uint32(z[*i])
	*i++
	if c >= 0xc0 {
		c = uint32(utf8Trans1[c-0xc0])
		for *i < len(z) && z[*i]&0xc0 == 0x80 {
			c = c<<6 + uint32(z[*i]&0x3f)
			*i++
		}
		if c < 0x80 || c&0xFFFFF800 == 0xD800 {
			c = 0xFFFD
		}
	}
	return c
}

// at returns z[i], or the terminator past the end.
func at(z []byte, i int) byte {
	if i < len(z) {
		return z[i]
	}
	return 0
}

// asciiLower is sqlite3UpperToLower for the ASCII range.
func asciiLower(c uint32) uint32 {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

// patternCompare reports whether str matches pat (SQLite's patternCompare,
// with the same recursion and the same early exits), counting its work on
// st.
func patternCompare(pat []byte, p int, str []byte, s int, info *compareInfo, matchOther uint32, st *stopper) int {
	matchOne, matchAll := uint32(info.matchOne), uint32(info.matchAll)
	escaped := -1 // one past the last escaped pattern character
	for {
		if st.tick(1) {
			return likeStopped
		}
		c := utf8Read(pat, &p)
		if c == 0 {
			break
		}
		if c == matchAll {
			// Skip further "*" and "?", each "?" consuming one character.
			for {
				c = utf8Read(pat, &p)
				if !(c == matchAll || (c == matchOne && matchOne != 0)) {
					break
				}
				if c == matchOne && utf8Read(str, &s) == 0 {
					return likeNoWildcardMatch
				}
			}
			if c == 0 {
				return likeMatch
			}
			if c == matchOther {
				if info.matchSet == 0 {
					c = utf8Read(pat, &p)
					if c == 0 {
						return likeNoWildcardMatch
					}
				} else {
					// "[...]" right after "*": try it at every character.
					for at(str, s) != 0 {
						if r := patternCompare(pat, p-1, str, s, info, matchOther, st); r != likeNoMatch {
							return r
						}
						b := str[s]
						s++
						if b >= 0xc0 {
							for at(str, s)&0xc0 == 0x80 {
								s++
							}
						}
					}
					return likeNoWildcardMatch
				}
			}
			return matchAfterStar(pat, p, str, s, c, info, matchOther, st)
		}
		if c == matchOther {
			if info.matchSet == 0 {
				c = utf8Read(pat, &p)
				if c == 0 {
					return likeNoMatch
				}
				escaped = p
			} else {
				if r, ok := matchSet(pat, &p, str, &s, st); !ok {
					return r
				}
				continue
			}
		}
		c2 := utf8Read(str, &s)
		if c == c2 {
			continue
		}
		if info.noCase && c < 0x80 && c2 < 0x80 && asciiLower(c) == asciiLower(c2) {
			continue
		}
		if c == matchOne && p != escaped && c2 != 0 {
			continue
		}
		return likeNoMatch
	}
	if at(str, s) == 0 {
		return likeMatch
	}
	return likeNoMatch
}

// matchAfterStar searches str from s for the pattern character c that
// follows a "*" and continues the match from each place it occurs.
func matchAfterStar(pat []byte, p int, str []byte, s int, c uint32, info *compareInfo, matchOther uint32, st *stopper) int {
	if c < 0x80 {
		c1, c2 := byte(c), byte(c)
		if info.noCase {
			c1, c2 = byte(c), byte(asciiLower(c))
			if c >= 'a' && c <= 'z' {
				c1 = byte(c - 32)
			}
		}
		for {
			// strcspn: the next c1 or c2, or the terminator.
			for {
				b := at(str, s)
				if b == 0 || b == c1 || b == c2 {
					break
				}
				s++
				if st.tick(1) {
					return likeStopped
				}
			}
			if at(str, s) == 0 {
				break
			}
			s++
			if r := patternCompare(pat, p, str, s, info, matchOther, st); r != likeNoMatch {
				return r
			}
		}
		return likeNoWildcardMatch
	}
	for {
		if st.tick(1) {
			return likeStopped
		}
		c2 := utf8Read(str, &s)
		if c2 == 0 {
			break
		}
		if c2 != c {
			continue
		}
		if r := patternCompare(pat, p, str, s, info, matchOther, st); r != likeNoMatch {
			return r
		}
	}
	return likeNoWildcardMatch
}

// matchSet matches one string character against the GLOB class "[...]"
// whose "[" was just read. ok is false when the comparison ends (r says
// how); true means the class matched and the pattern goes on.
func matchSet(pat []byte, p *int, str []byte, s *int, st *stopper) (r int, ok bool) {
	var prior uint32
	seen, invert := false, false
	c := utf8Read(str, s)
	if c == 0 {
		return likeNoMatch, false
	}
	c2 := utf8Read(pat, p)
	if c2 == '^' {
		invert = true
		c2 = utf8Read(pat, p)
	}
	if c2 == ']' {
		if c == ']' {
			seen = true
		}
		c2 = utf8Read(pat, p)
	}
	for c2 != 0 && c2 != ']' {
		if st.tick(1) {
			return likeStopped, false
		}
		if c2 == '-' && at(pat, *p) != ']' && at(pat, *p) != 0 && prior > 0 {
			c2 = utf8Read(pat, p)
			if c >= prior && c <= c2 {
				seen = true
			}
			prior = 0
		} else {
			if c == c2 {
				seen = true
			}
			prior = c2
		}
		c2 = utf8Read(pat, p)
	}
	if c2 == 0 || seen == invert {
		return likeNoMatch, false
	}
	return 0, true
}

// utf8CharLen is sqlite3Utf8CharLen(z, -1): characters before the first
// NUL.
func utf8CharLen(z []byte) int {
	n := 0
	for i := 0; at(z, i) != 0; n++ {
		b := z[i]
		i++
		if b >= 0xc0 {
			for at(z, i)&0xc0 == 0x80 {
				i++
			}
		}
	}
	return n
}
