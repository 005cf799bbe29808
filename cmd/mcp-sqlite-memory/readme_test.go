package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
)

// TestREADMECommandLineListsEverySubcommand: README's Command line table
// has a row for each subcommand the binary has, and no other.
func TestREADMECommandLineListsEverySubcommand(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(data), "\n## Command line\n")
	require.True(t, ok, "README has a Command line section")
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `" + settings.ProgName + " ([a-z]+)")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		listed = append(listed, m[1])
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	assert.ElementsMatch(t, names, listed, "README's Command line rows against the binary's subcommands")
}
