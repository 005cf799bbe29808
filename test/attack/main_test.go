// Package attack_test is the attack corpus: hand-written attempts to get past
// the statement policy, each with the verdict every tier must give. Every
// case runs against a fresh copy of one seeded database, once at the adapter
// level (where the error kind is checked with errors.Is) and once through a
// real MCP client (where the tool error and its wording are checked). After
// every refusal the database must be exactly as it was: every row of every
// user table and of sqlite_schema, the server tables (but for the audit row
// the call itself adds), the files beside the database, and the state of the
// pooled connections the next call will use.
package attack_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// templateDir holds the seeded database every case copies.
var templateDir string

func TestMain(m *testing.M) {
	// Hundreds of databases are created and synced; on a RAM disk that costs
	// no disk flushes. Nothing here depends on where the folders are.
	if shm, err := os.MkdirTemp("/dev/shm", "attack-"); err == nil {
		os.Setenv("TMPDIR", shm)
	}
	dir, err := os.MkdirTemp("", "attack-template-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	templateDir = dir
	// A relative ATTACH or VACUUM INTO would create its file in the working
	// directory, which is this package's folder: it must stay as it is.
	before := names(".")
	code := m.Run()
	if extra := added(before, names(".")); len(extra) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: files appeared in the package folder: %v\n", extra)
		for _, n := range extra {
			os.RemoveAll(n)
		}
		code = 1
	}
	os.RemoveAll(dir)
	if tmp := os.Getenv("TMPDIR"); strings.HasPrefix(tmp, "/dev/shm/attack-") {
		os.RemoveAll(tmp)
	}
	os.Exit(code)
}

// names lists the entries of dir.
func names(dir string) []string {
	entries, _ := os.ReadDir(dir)
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// added returns the names in after that are not in before.
func added(before, after []string) []string {
	var out []string
	for _, n := range after {
		if !slices.Contains(before, n) {
			out = append(out, n)
		}
	}
	return out
}
