package arch_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMETestCommandIsWhatCIRuns: README's "Test it" promises that
// .ci/run runs exactly its test command, and CI is what proves the
// command passes. The command in README's first sh block under "## Test
// it" must be a line of .ci/run, word for word.
func TestREADMETestCommandIsWhatCIRuns(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	ci, err := os.ReadFile("../../.ci/run")
	require.NoError(t, err)

	_, section, ok := strings.Cut(string(readme), "\n## Test it\n")
	require.True(t, ok, "README has a Test it section")
	_, block, ok := strings.Cut(section, "```sh\n")
	require.True(t, ok, "Test it shows its command in an sh block")
	command, _, _ := strings.Cut(block, "\n```")
	command = strings.TrimSpace(command)
	require.NotEmpty(t, command)

	found := false
	for _, line := range strings.Split(string(ci), "\n") {
		// .ci/run checks the list's status itself (set -e skips && lists).
		line = strings.TrimSuffix(strings.TrimSpace(line), " || exit 1")
		found = found || line == command
	}
	assert.True(t, found, ".ci/run must run README's test command word for word:\n%s", command)
}
