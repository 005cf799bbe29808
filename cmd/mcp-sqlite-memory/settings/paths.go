package settings

import (
	"os"
	"os/user"
	"runtime"
	"strings"
)

// pathRules are one operating system's path conventions, so the path
// functions below are pure and every OS's rules are testable on any host.
// Only what the settings need is modelled: separators, volume names (drive
// letters, UNC shares) and what makes a path absolute.
type pathRules struct {
	// sep is the separator the functions insert.
	sep byte
	// windows selects drive letters, UNC volumes and \ as a separator.
	windows bool
}

var (
	unixPaths    = pathRules{sep: '/'}
	windowsPaths = pathRules{sep: '\\', windows: true}
)

// hostPaths are the rules of the OS this binary runs on.
func hostPaths() pathRules {
	if runtime.GOOS == "windows" {
		return windowsPaths
	}
	return unixPaths
}

// isSep reports whether c separates path elements ('/' everywhere, and '\'
// on Windows).
func (r pathRules) isSep(c byte) bool { return c == '/' || (r.windows && c == '\\') }

// volumeLen is the length of p's leading volume name: "C:" for a drive
// letter, `\\server\share` for a UNC path (also `\\?\C:` and `\\.\pipe`
// device forms, volume up to the element after the prefix); 0 on Unix.
func (r pathRules) volumeLen(p string) int {
	if !r.windows {
		return 0
	}
	if len(p) >= 2 && p[1] == ':' && isLetter(p[0]) {
		return 2
	}
	if len(p) < 3 || !r.isSep(p[0]) || !r.isSep(p[1]) || r.isSep(p[2]) {
		return 0
	}
	// \\server\share or \\?\X: take two more elements.
	n, elems := 2, 0
	for n < len(p) && elems < 2 {
		start := n
		for n < len(p) && !r.isSep(p[n]) {
			n++
		}
		if n == start {
			break
		}
		elems++
		if elems < 2 && n < len(p) {
			n++ // the separator between the two elements
		}
	}
	return n
}

func isLetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// isAbs reports whether p names the same file whatever the working
// directory: on Unix a leading '/'; on Windows a volume followed by a
// separator, or a UNC volume (`\foo` and `C:foo` are relative there).
func (r pathRules) isAbs(p string) bool {
	if !r.windows {
		return strings.HasPrefix(p, "/")
	}
	v := r.volumeLen(p)
	if v == 0 {
		return false
	}
	if v > 2 { // UNC: always absolute
		return true
	}
	return len(p) > v && r.isSep(p[v])
}

// join appends elem to dir with exactly one separator between them,
// without cleaning anything else by text ("x/.." stays for the system).
func (r pathRules) join(dir, elem string) string {
	if dir == "" {
		return elem
	}
	if r.isSep(dir[len(dir)-1]) {
		return dir + elem
	}
	return dir + string(r.sep) + elem
}

// abs makes p absolute against the working directory wd without cleaning
// it by text: after a symbolic link, "link/../x.db" is the x.db beside the
// link's target, as the system and SQLite resolve it. On Windows a rooted
// path without a drive (`\data\x.db`) takes wd's volume, and a
// drive-relative one (`D:x.db`) is taken from the root of its drive unless
// wd is on that drive (the per-drive working directories of cmd.exe are
// not visible to a process).
func (r pathRules) abs(p, wd string) string {
	if r.isAbs(p) {
		return p
	}
	if r.windows {
		v := r.volumeLen(p)
		switch {
		case v == 0 && p != "" && r.isSep(p[0]):
			return wd[:r.volumeLen(wd)] + p
		case v == 2:
			if strings.EqualFold(p[:2], wd[:min(2, len(wd))]) {
				return r.join(wd, p[2:])
			}
			return p[:2] + string(r.sep) + p[2:]
		}
	}
	return r.join(wd, p)
}

// expandHome expands a leading ~ or ~user the way Python's
// os.path.expanduser does, with the OS's separators ending the user name;
// lookup finds another user's home folder. A path it cannot expand is
// returned unchanged.
func (r pathRules) expandHome(p, home string, lookup func(name string) (string, error)) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	name, tail := p[1:], ""
	for i := 0; i < len(name); i++ {
		if r.isSep(name[i]) {
			name, tail = name[:i], name[i:]
			break
		}
	}
	if name != "" {
		h, err := lookup(name)
		if err != nil || h == "" {
			return p
		}
		home = h
	}
	if home == "" {
		return p
	}
	trimmed := home
	for len(trimmed) > r.volumeLen(home) && r.isSep(trimmed[len(trimmed)-1]) {
		trimmed = trimmed[:len(trimmed)-1]
	}
	if trimmed == "" { // home was "/" (all separators)
		if tail == "" {
			return string(r.sep)
		}
		return tail
	}
	if tail == "" && len(trimmed) == r.volumeLen(trimmed) && len(home) > len(trimmed) {
		return trimmed + string(r.sep) // "C:\" stays the drive's root, not "C:"
	}
	return trimmed + tail
}

// lookupHome is another user's home folder from the system's user database.
func lookupHome(name string) (string, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return "", err
	}
	return u.HomeDir, nil
}

// ExpandHome is [pathRules.expandHome] with this OS's rules and users.
func ExpandHome(p, home string) string { return hostPaths().expandHome(p, home, lookupHome) }

// AbsKeepDots is [pathRules.abs] with this OS's rules and working directory.
func AbsKeepDots(path string) (string, error) {
	r := hostPaths()
	if r.isAbs(path) {
		return path, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return r.abs(path, wd), nil
}

// withoutDots drops the "." elements of p ("/w/./memory.db" is
// "/w/memory.db"), which never change the file a path names; ".." stays,
// since through a link it does. For the serving line, which people read.
func (r pathRules) withoutDots(p string) string {
	v := r.volumeLen(p)
	out := []byte(p[:v])
	for i := v; i < len(p); {
		j := i
		for j < len(p) && !r.isSep(p[j]) {
			j++
		}
		elem := p[i:j]
		switch {
		case elem == "." && j < len(p):
			j++ // "./": drop it with its separator
		case elem == "." && len(out) > v+1:
			out = out[:len(out)-1] // a final "/.": drop the separator before it
		case elem == ".":
		default:
			out = append(out, elem...)
			if j < len(p) {
				out = append(out, p[j])
				j++
			}
		}
		i = j
	}
	if len(out) == v && len(p) > v {
		return p // "." alone, or the root: nothing to drop
	}
	return string(out)
}

// ShownPath is [pathRules.withoutDots] with this OS's rules.
func ShownPath(p string) string { return hostPaths().withoutDots(p) }
