package webui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// humanBytes is a size in B, KiB, MiB or GiB.
func humanBytes(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return strconv.FormatInt(n, 10) + " B"
	case n < k*k:
		return fmt.Sprintf("%.1f KiB", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MiB", float64(n)/(k*k))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(k*k*k))
}

// short is s cut to n characters with an ellipsis, on one line.
func short(n int, s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// baseName is a path's last element; a page never shows an absolute path.
func baseName(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Base(p)
}

// absPath matches an absolute path inside a message (Unix or Windows). Compiled
// at its first use, like every pattern of the server's
// (docs/decisions.md#start-up).
var absPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:[A-Za-z]:\\|/)[^\s'"():,;]*[/\\]([^\s'"():,;/\\]+)`)
})

// baseNames replaces every absolute path in s with its base name.
func baseNames(s string) string {
	return absPath().ReplaceAllString(s, "$1")
}

// quoteSQL is s as an SQL string literal (the read tier takes no bound
// parameters, so a page's filter values are quoted literals).
func quoteSQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// likePattern is s as a LIKE pattern matching it anywhere, with % _ and \
// escaped (ESCAPE '\').
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return quoteSQL("%" + r.Replace(s) + "%")
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	case []byte:
		n, _ := strconv.ParseInt(string(x), 10, 64)
		return n
	}
	return 0
}

func asText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
