package domain

import "strings"

// childEnvBase are the variables every child process gets, because a
// program needs them to run at all and they hold no secret: where programs
// are (PATH; PATHEXT, COMSPEC and the system folders on Windows, where a Go
// program cannot even open a socket without SYSTEMROOT), who and where the
// user is (HOME, USER, LOGNAME, USERPROFILE, APPDATA, LOCALAPPDATA), where
// temporary files go (TMPDIR, TMP, TEMP), and the time zone and locale (TZ,
// LANG, LC_*). A name ending in "*" is a prefix.
var childEnvBase = []string{
	"PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "TMP", "TEMP", "TZ", "LANG", "LC_*",
	"SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
}

// ChildEnv is the environment of a child process, built from an allow-list
// so that a secret (MCP_SQLITE_AUTH_TOKEN, a replica URL's credentials, or
// whatever else the server's own environment holds) reaches no child that
// was not meant to have it, including a child added later: the variables of
// environ (in os.Environ's NAME=value form) named in childEnvBase or in
// extra, where a name ending in "*" is a prefix. Names are compared without
// regard to case, as Windows does (and so that both HTTPS_PROXY and
// https_proxy pass when one is allowed). Every other variable is dropped.
func ChildEnv(environ []string, extra ...string) []string {
	out := []string{}
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue // Windows' per-drive "=C:=C:\dir" entries, and junk
		}
		if envAllowed(name, childEnvBase) || envAllowed(name, extra) {
			out = append(out, kv)
		}
	}
	return out
}

// envAllowed reports whether the variable name is in list.
func envAllowed(name string, list []string) bool {
	for _, a := range list {
		if prefix, ok := strings.CutSuffix(a, "*"); ok {
			if len(name) >= len(prefix) && strings.EqualFold(name[:len(prefix)], prefix) {
				return true
			}
		} else if strings.EqualFold(name, a) {
			return true
		}
	}
	return false
}
