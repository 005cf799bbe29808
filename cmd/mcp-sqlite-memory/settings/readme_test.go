package settings

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeSetting is one row of README's Settings table.
type readmeSetting struct {
	flags, variables []string
	defaultText      string
}

var (
	readmeFlag     = regexp.MustCompile("`(--?[a-z][a-z0-9-]*)")
	readmeVariable = regexp.MustCompile(`\bMCP_SQLITE_[A-Z_]+\b`)
	helpFlagLine   = regexp.MustCompile(`^\s+(?:-[a-z], )?(--?[a-z][a-z0-9-]*)`)
	helpDefault    = regexp.MustCompile(`\(default:? ([^)]*)\)`)
)

// readmeSettings reads the table under README's "## Settings" heading.
func readmeSettings(t *testing.T) []readmeSetting {
	t.Helper()
	data, err := os.ReadFile("../../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(data), "\n## Settings\n")
	require.True(t, ok, "README has a Settings section")
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []readmeSetting
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| flag ") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|")
		require.Len(t, cells, 4, "a Settings row has flag, variable, default and meaning: %q", line)
		var r readmeSetting
		for _, m := range readmeFlag.FindAllStringSubmatch(cells[0], -1) {
			r.flags = append(r.flags, m[1])
		}
		r.variables = readmeVariable.FindAllString(cells[1], -1)
		r.defaultText = strings.ReplaceAll(cells[2], "`", "")
		rows = append(rows, r)
	}
	require.NotEmpty(t, rows)
	return rows
}

// helpBlocks maps each flag of the --help text to its description, its
// continuation lines joined by spaces.
func helpBlocks() map[string]string {
	blocks := map[string]string{}
	current := ""
	for _, line := range strings.Split(Usage(), "\n") {
		if m := helpFlagLine.FindStringSubmatch(line); m != nil {
			current = "--" + strings.TrimLeft(m[1], "-")
			blocks[current] = line
			continue
		}
		if current != "" && strings.HasPrefix(line, "   ") {
			blocks[current] += " " + strings.TrimSpace(line)
		} else {
			current = ""
		}
	}
	return blocks
}

// TestREADMESettingsMatchHelp: README's Settings table promises every
// flag, its variable and its default; --help is what the program says.
// Every flag the program takes has a row, every row's flags and variables
// are in --help, and a default --help states is the row's default.
func TestREADMESettingsMatchHelp(t *testing.T) {
	t.Parallel()
	rows := readmeSettings(t)
	help := Usage()
	blocks := helpBlocks()

	inREADME := map[string]readmeSetting{}
	for _, r := range rows {
		for _, f := range r.flags {
			inREADME["--"+strings.TrimLeft(f, "-")] = r
			assert.Contains(t, help, f, "README's Settings row %s is not in --help", f)
		}
		for _, v := range r.variables {
			assert.Contains(t, help, v, "README's Settings variable %s is not in --help", v)
		}
	}

	var s settings
	newFlagSet(&s, envOf(nil)).VisitAll(func(f *flag.Flag) {
		if f.Name == "h" || f.Name == "help" {
			return
		}
		r, ok := inREADME["--"+f.Name]
		if !assert.True(t, ok, "--%s has no row in README's Settings table", f.Name) {
			return
		}
		block := blocks["--"+f.Name]
		if m := helpDefault.FindStringSubmatch(block); m != nil {
			assert.Contains(t, r.defaultText, m[1], "README's default of --%s differs from --help's", f.Name)
		}
		// The first variable --help names under a flag is the flag's own.
		if v := readmeVariable.FindString(block); v != "" {
			assert.Contains(t, r.variables, v, "--help names %s for --%s; README's row does not", v, f.Name)
		}
	})
}
