package arch_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TestREADMETestCommandIsWhatCIRuns: README's "Test it" promises that
// .ci/run runs exactly its test command, that the command runs every part
// whatever the others did and fails at the end, and names the parts; CI is
// what proves the command passes. The command in README's first sh block
// under "## Test it" must be a line of .ci/run, word for word; it is a
// script in the repository whose parts are "part ..." lines, with no
// set -e and no && chain that would skip a part after a failure; and
// every fuzz target and package a part fuzzes is named in the section.
func TestREADMETestCommandIsWhatCIRuns(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	ci, err := os.ReadFile("../../.ci/run")
	require.NoError(t, err)

	_, section, ok := strings.Cut(string(readme), "\n## Test it\n")
	require.True(t, ok, "README has a Test it section")
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "```sh\n")
	require.True(t, ok, "Test it shows its command in an sh block")
	command, _, _ := strings.Cut(block, "\n```")
	command = strings.TrimSpace(command)
	require.NotEmpty(t, command)

	assert.Contains(t, ciParts(string(ci)), command, ".ci/run must run README's test command word for word, as one of its parts:\n%s", command)

	script, err := os.ReadFile("../../" + command)
	require.NoError(t, err, "README's test command is a script in the repository")
	info, err := os.Stat("../../" + command)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode().Perm()&0o100, "%s is executable", command)
	parts := ciParts(string(script))
	require.NotEmpty(t, parts, "%s runs its parts with part, so that each runs whatever the others did", command)
	assert.NotRegexp(t, `(?m)^set -[a-z]*e`, string(script), "%s: set -e would stop at the first failing part", command)
	fuzz := regexp.MustCompile(`-fuzz '\^(\w+)\$'.* (\./\S+)$`)
	fuzzed := 0
	for _, p := range parts {
		assert.NotContains(t, p, "&&", "a part is one command: && would skip the rest after a failure")
		if m := fuzz.FindStringSubmatch(p); m != nil {
			fuzzed++
			assert.Contains(t, section, "`"+m[1]+"`", "README's Test it names the fuzz target %s", m[1])
			assert.Contains(t, section, "`"+m[2]+"`", "README's Test it names the package %s fuzzes", m[2])
		}
	}
	assert.Positive(t, fuzzed, "the test command fuzzes")
}

// ciParts returns the commands a script runs as parts ("part CMD" lines).
func ciParts(script string) []string {
	var out []string
	for _, line := range strings.Split(script, "\n") {
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "part "); ok {
			out = append(out, cmd)
		}
	}
	return out
}

// TestREADMEToolsTableMatchesTheDeclarations: README's Tools table has one
// row per declared tool, with its tier and its arguments (the required
// ones first, the others after "optional", each named once), and its
// "destructiveHint: true" sentence names exactly the tools whose
// annotations say so.
func TestREADMEToolsTableMatchesTheDeclarations(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Tools\n")
	require.True(t, ok, "README has a Tools section")
	section, _, _ = strings.Cut(section, "\n## ")

	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([a-z]+) \\| ([^|]*) \\|")
	type listing struct{ tier, args string }
	listed := map[string]listing{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		listed[m[1]] = listing{m[2], m[3]}
	}
	require.NotEmpty(t, listed, "README's Tools table has rows of tool, tier, arguments and description")
	tierName := map[domain.Tier]string{domain.TierRead: "read", domain.TierWrite: "write", domain.TierDestructive: "destructive"}
	var overwriting []string
	for _, d := range domain.Tools() {
		l := listed[d.Name]
		assert.Equal(t, tierName[d.Tier], l.tier, "README's Tools row of %s: its tier", d.Name)
		assert.Equal(t, declaredArgs(d), readmeArgs(l.args), "README's Tools row of %s: its arguments", d.Name)
		delete(listed, d.Name)
		if d.Overwrites() {
			overwriting = append(overwriting, d.Name)
		}
	}
	assert.Empty(t, listed, "README lists tools that are not declared")

	sentence := regexp.MustCompile("(?s)a `title`; (.*?) are\\s+annotated `destructiveHint: true`").FindStringSubmatch(section)
	require.NotNil(t, sentence, "README says which tools are annotated destructiveHint: true")
	var named []string
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(sentence[1], -1) {
		named = append(named, m[1])
	}
	assert.ElementsMatch(t, overwriting, named, "README's destructiveHint sentence against the declarations")
}

// toolArgs is a tool's arguments as README's Tools table lists them: the
// required ones, then the optional ones, each in declaration order.
type toolArgs struct{ required, optional []string }

// declaredArgs is what the declaration says of d's arguments.
func declaredArgs(d domain.Tool) toolArgs {
	var a toolArgs
	for _, arg := range d.Args {
		if arg.Required {
			a.required = append(a.required, arg.Name)
		} else {
			a.optional = append(a.optional, arg.Name)
		}
	}
	return a
}

// readmeArgs reads an arguments cell: "`a`, `b`; optional `c`, `d`".
func readmeArgs(cell string) toolArgs {
	names := regexp.MustCompile("`([a-z_]+)`")
	req, opt, _ := strings.Cut(cell, "optional")
	var a toolArgs
	for _, m := range names.FindAllStringSubmatch(req, -1) {
		a.required = append(a.required, m[1])
	}
	for _, m := range names.FindAllStringSubmatch(opt, -1) {
		a.optional = append(a.optional, m[1])
	}
	return a
}
