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
// row per declared tool, with its tier, and its "destructiveHint: true"
// sentence names exactly the tools whose annotations say so.
func TestREADMEToolsTableMatchesTheDeclarations(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Tools\n")
	require.True(t, ok, "README has a Tools section")
	section, _, _ = strings.Cut(section, "\n## ")

	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([a-z]+) \\|")
	listed := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		listed[m[1]] = m[2]
	}
	tierName := map[domain.Tier]string{domain.TierRead: "read", domain.TierWrite: "write", domain.TierDestructive: "destructive"}
	var overwriting []string
	for _, d := range domain.Tools() {
		assert.Equal(t, tierName[d.Tier], listed[d.Name], "README's Tools row of %s: its tier", d.Name)
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
