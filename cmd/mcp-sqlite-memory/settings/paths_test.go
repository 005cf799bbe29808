package settings

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// These run on every host: the Windows rules are pure functions, so a
// Linux CI checks drive letters, backslashes and UNC shares too.

func TestPathRulesIsAbs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rules pathRules
		path  string
		want  bool
	}{
		{unixPaths, "/data/x.db", true},
		{unixPaths, "x.db", false},
		{unixPaths, `C:\x.db`, false},
		{unixPaths, "~/x.db", false},
		{windowsPaths, `C:\data\x.db`, true},
		{windowsPaths, `c:/data/x.db`, true},
		{windowsPaths, `C:x.db`, false}, // relative to drive C's working directory
		{windowsPaths, `\data\x.db`, false},
		{windowsPaths, `/data/x.db`, false},
		{windowsPaths, `\\server\share\x.db`, true},
		{windowsPaths, `//server/share/x.db`, true},
		{windowsPaths, `\\?\C:\x.db`, true},
		{windowsPaths, `x.db`, false},
		{windowsPaths, ``, false},
	} {
		assert.Equal(t, tc.want, tc.rules.isAbs(tc.path), "windows=%v %q", tc.rules.windows, tc.path)
	}
}

func TestPathRulesVolumeLen(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]int{
		`C:\x`: 2, `C:`: 2, `1:\x`: 0, `\\server\share\x`: len(`\\server\share`), `\\server\share`: len(`\\server\share`),
		`\\server`: len(`\\server`), `\\?\C:\x`: len(`\\?\C:`), `\\\x`: 0, `\x`: 0, `x`: 0,
	} {
		assert.Equal(t, want, windowsPaths.volumeLen(path), path)
	}
	assert.Equal(t, 0, unixPaths.volumeLen(`C:\x`))
}

func TestPathRulesAbs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rules         pathRules
		path, wd, out string
	}{
		{unixPaths, "x.db", "/home/me", "/home/me/x.db"},
		{unixPaths, "x.db", "/", "/x.db"},
		{unixPaths, "link/../x.db", "/w", "/w/link/../x.db"},
		{unixPaths, "/abs/x.db", "/w", "/abs/x.db"},
		{unixPaths, `a\b.db`, "/w", `/w/a\b.db`}, // a backslash is a file name character on Unix
		{windowsPaths, `x.db`, `C:\Users\me`, `C:\Users\me\x.db`},
		{windowsPaths, `sub/x.db`, `C:\Users\me\`, `C:\Users\me\sub/x.db`},
		{windowsPaths, `link\..\x.db`, `C:\w`, `C:\w\link\..\x.db`},
		{windowsPaths, `D:\x.db`, `C:\w`, `D:\x.db`},
		{windowsPaths, `\data\x.db`, `D:\w`, `D:\data\x.db`},
		{windowsPaths, `\data\x.db`, `\\srv\share\w`, `\\srv\share\data\x.db`},
		{windowsPaths, `c:x.db`, `C:\w`, `C:\w\x.db`},
		{windowsPaths, `D:x.db`, `C:\w`, `D:\x.db`},
		{windowsPaths, `\\srv\share\x.db`, `C:\w`, `\\srv\share\x.db`},
	} {
		assert.Equal(t, tc.out, tc.rules.abs(tc.path, tc.wd), "windows=%v %q in %q", tc.rules.windows, tc.path, tc.wd)
	}
}

func TestPathRulesExpandHome(t *testing.T) {
	t.Parallel()
	lookup := func(name string) (string, error) {
		switch name {
		case "ann":
			return "/home/ann", nil
		case "bob":
			return `C:\Users\bob`, nil
		}
		return "", errors.New("unknown user")
	}
	for _, tc := range []struct {
		rules           pathRules
		path, home, out string
	}{
		{unixPaths, "~/x.db", "/home/me", "/home/me/x.db"},
		{unixPaths, "~", "/home/me/", "/home/me"},
		{unixPaths, "~", "/", "/"},
		{unixPaths, "~/x.db", "/", "/x.db"},
		{unixPaths, "~/x.db", "", "~/x.db"},
		{unixPaths, "~ann/x.db", "/home/me", "/home/ann/x.db"},
		{unixPaths, "~nobody/x.db", "/home/me", "~nobody/x.db"},
		{unixPaths, `~\x.db`, "/home/me", `~\x.db`}, // "~\x.db" is user `\x.db`'s home on Unix: unknown
		{unixPaths, "a/~/x.db", "/home/me", "a/~/x.db"},
		{windowsPaths, `~\x.db`, `C:\Users\me`, `C:\Users\me\x.db`},
		{windowsPaths, `~/x.db`, `C:\Users\me\`, `C:\Users\me/x.db`},
		{windowsPaths, `~`, `C:\`, `C:\`},
		{windowsPaths, `~\x.db`, `C:\`, `C:\x.db`},
		{windowsPaths, `~bob\x.db`, `C:\Users\me`, `C:\Users\bob\x.db`},
		{windowsPaths, `~\x.db`, `\\srv\home\me\`, `\\srv\home\me\x.db`},
		{windowsPaths, `C:\~\x.db`, `C:\Users\me`, `C:\~\x.db`},
	} {
		assert.Equal(t, tc.out, tc.rules.expandHome(tc.path, tc.home, lookup), "windows=%v %q home %q", tc.rules.windows, tc.path, tc.home)
	}
}

// The serving line shows the database path without "." elements, which
// never change the file; ".." stays (through a link it does).
func TestWithoutDots(t *testing.T) {
	for _, c := range []struct {
		rules    pathRules
		in, want string
	}{
		{unixPaths, "/w/./memory.db", "/w/memory.db"},
		{unixPaths, "/w/././a/./memory.db", "/w/a/memory.db"},
		{unixPaths, "/w/x/../memory.db", "/w/x/../memory.db"},
		{unixPaths, "/w/.hidden/memory.db", "/w/.hidden/memory.db"},
		{unixPaths, "/w/a.", "/w/a."},
		{unixPaths, "/w/.", "/w"},
		{unixPaths, "/./memory.db", "/memory.db"},
		{unixPaths, "/", "/"},
		{unixPaths, "/memory.db", "/memory.db"},
		{windowsPaths, `C:\w\.\memory.db`, `C:\w\memory.db`},
		{windowsPaths, `C:\w/./memory.db`, `C:\w/memory.db`},
		{windowsPaths, `\\srv\share\.\memory.db`, `\\srv\share\memory.db`},
	} {
		assert.Equal(t, c.want, c.rules.withoutDots(c.in), c.in)
	}
}
