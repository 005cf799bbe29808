package regexp2

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// wordClass is Rust's Unicode \w as a regexp2 class, for \b and \B.
var wordClass = sync.OnceValue(func() string {
	var b strings.Builder
	writeClass(&b, perlSet('w'))
	return b.String()
})

// perlSets holds Rust's Unicode meaning of \d (Nd), \s (White_Space) and \w
// (Alphabetic, M, Nd, Pc and Join_Control) as sorted [lo, hi] pairs.
var perlSets = sync.OnceValue(func() map[rune][]rune {
	return map[rune][]rune{
		'd': mergeTables(unicode.Nd),
		's': mergeTables(unicode.White_Space),
		'w': mergeTables(
			// Alphabetic = Lu + Other_Uppercase + Ll + Other_Lowercase + Lt + Lm + Lo + Nl + Other_Alphabetic.
			unicode.L, unicode.Other_Uppercase, unicode.Other_Lowercase, unicode.Nl, unicode.Other_Alphabetic,
			unicode.M, unicode.Nd, unicode.Pc, unicode.Join_Control,
		),
	}
})

// perlSet returns the set of \d, \s or \w for any letter case of c.
func perlSet(c rune) []rune {
	return perlSets()[unicode.ToLower(c)]
}

// namedSet is a Unicode category or property regexp2 knows by name.
type namedSet struct {
	name   string
	ranges []rune
	size   int // code points
}

// namedSets lists the categories and properties a large class is written
// with, largest first. regexp2 resolves \p{Name} through Go's unicode
// Categories, Scripts and Properties tables, the very tables listed here.
var namedSets = sync.OnceValue(func() []namedSet {
	tables := map[string]*unicode.RangeTable{
		"Other_Alphabetic": unicode.Other_Alphabetic, "Other_Uppercase": unicode.Other_Uppercase,
		"Other_Lowercase": unicode.Other_Lowercase, "White_Space": unicode.White_Space,
		"Join_Control": unicode.Join_Control,
	}
	for name, t := range unicode.Categories {
		tables[name] = t
	}
	var sets []namedSet
	for name, t := range tables {
		ranges := mergeTables(t)
		size := 0
		for i := 0; i+1 < len(ranges); i += 2 {
			size += int(ranges[i+1]-ranges[i]) + 1
		}
		sets = append(sets, namedSet{name: name, ranges: ranges, size: size})
	}
	slices.SortFunc(sets, func(a, b namedSet) int {
		return cmp.Or(cmp.Compare(b.size, a.size), strings.Compare(a.name, b.name))
	})
	return sets
})

// classForm writes a set as named sets, plus ranges, minus exceptions:
// [\p{A}\p{B}x-z-[q]] in regexp2's (.NET) class syntax.
type classForm struct {
	names  []string
	rest   []rune
	except []rune
}

// cost counts the explicit ranges regexp2 would scan one by one.
func (f classForm) cost() int { return len(f.rest) + len(f.except) }

// maxExplicit is how many explicit ranges a class may keep before
// decompose looks for named sets that cover it.
const maxExplicit = 16

// decompose writes set (sorted [lo, hi] pairs) as the union of the named
// sets it contains, then, while many ranges are left, of named sets it
// contains but for fewer exceptions than they save, which the class then
// subtracts.
func decompose(set []rune) classForm {
	f := classForm{rest: set}
	if len(set) <= 2*maxExplicit {
		return f
	}
	for _, ns := range namedSets() {
		if len(f.rest) == 0 {
			break
		}
		if intersects(f.rest, ns.ranges) && contains(set, ns.ranges) {
			f.names = append(f.names, ns.name)
			f.rest = subtract(f.rest, ns.ranges)
		}
	}
	for _, ns := range namedSets() {
		if len(f.rest) <= 2*maxExplicit {
			break
		}
		if !intersects(f.rest, ns.ranges) {
			continue
		}
		// Worth it when it removes more explicit ranges than it adds.
		rest, except := subtract(f.rest, ns.ranges), subtract(ns.ranges, set)
		if len(f.rest)-len(rest) > 2*len(except) {
			f.names = append(f.names, ns.name)
			f.rest = rest
			f.except = union(f.except, except)
		}
	}
	return f
}

// union returns the code points in a or b.
func union(a, b []rune) []rune {
	return complement(subtract(complement(a), b))
}

// contains reports whether sorted pairs a include every code point of b.
func contains(a, b []rune) bool {
	i := 0
	for j := 0; j+1 < len(b); j += 2 {
		for i+1 < len(a) && a[i+1] < b[j] {
			i += 2
		}
		if i+1 >= len(a) || a[i] > b[j] || a[i+1] < b[j+1] {
			return false
		}
	}
	return true
}

// intersects reports whether sorted pairs a and b share a code point.
func intersects(a, b []rune) bool {
	for i, j := 0, 0; i+1 < len(a) && j+1 < len(b); {
		switch {
		case a[i+1] < b[j]:
			i += 2
		case b[j+1] < a[i]:
			j += 2
		default:
			return true
		}
	}
	return false
}

// subtract returns the code points of a that are not in b.
func subtract(a, b []rune) []rune {
	var out []rune
	j := 0
	for i := 0; i+1 < len(a); i += 2 {
		lo, hi := a[i], a[i+1]
		for j+1 < len(b) && b[j+1] < lo {
			j += 2
		}
		for k := j; k+1 < len(b) && b[k] <= hi; k += 2 {
			if b[k] > lo {
				out = append(out, lo, b[k]-1)
			}
			lo = max(lo, b[k+1]+1)
		}
		if lo <= hi {
			out = append(out, lo, hi)
		}
	}
	return out
}

// mergeTables returns the union of tables as sorted, disjoint [lo, hi] pairs.
func mergeTables(tables ...*unicode.RangeTable) []rune {
	var spans [][2]rune
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			spans = append(spans, [2]rune{lo, hi})
			return
		}
		for c := lo; c <= hi; c += stride {
			spans = append(spans, [2]rune{c, c})
		}
	}
	for _, t := range tables {
		for _, r := range t.R16 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	slices.SortFunc(spans, func(a, b [2]rune) int { return cmp.Compare(a[0], b[0]) })
	var out []rune
	for _, s := range spans {
		if n := len(out); n > 0 && s[0] <= out[n-1]+1 {
			out[n-1] = max(out[n-1], s[1])
			continue
		}
		out = append(out, s[0], s[1])
	}
	return out
}

// complement returns the code points not in ranges.
func complement(ranges []rune) []rune {
	var out []rune
	next := rune(0)
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] > next {
			out = append(out, next, ranges[i]-1)
		}
		next = ranges[i+1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, next, unicode.MaxRune)
	}
	return out
}

// withoutSurrogates removes U+D800..U+DFFF, which are no characters (Rust's
// classes never hold them; Go's may), from sorted [lo, hi] pairs.
func withoutSurrogates(ranges []rune) []rune {
	return subtract(ranges, []rune{0xD800, 0xDFFF})
}
