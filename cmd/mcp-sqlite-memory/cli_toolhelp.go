package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// toolUsage is call TOOL --help: the tool's description and each of its
// arguments with type, bounds and default, read off its declaration under
// the default limits (the ones a server started without flags lists).
func toolUsage(name string) (string, error) {
	var tool *domain.Tool
	var names []string
	for _, d := range domain.Tools() {
		names = append(names, d.Name)
		if d.Name == name {
			tool = &d
		}
	}
	if tool == nil {
		return "", settings.Usagef("no tool %q; the tools are %s (see %s call --help)", name, strings.Join(names, ", "), settings.ProgName)
	}
	l := domain.DefaultLimits()
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s call [--db PATH] %s ['{\"arg\": value}' | -]\n\n%s (%s)\n\n", settings.ProgName, tool.Name, tool.Title, tierName(*tool))
	b.WriteString(wrap(tool.Describe(l), 80, ""))
	b.WriteString("\nArguments:\n")
	if len(tool.Args) == 0 {
		b.WriteString("  none\n")
	}
	for _, a := range tool.Args {
		fmt.Fprintf(&b, "  %s  %s\n", a.Name, argSummary(a, l))
		b.WriteString(wrap(a.Doc, 80, "      "))
	}
	fmt.Fprintf(&b, "\nBounds and defaults are those of the default limits; --max-rows and the other\nlimits change them (see %s --help). Example:\n  %s call --db memory.db %s '%s'\n", settings.ProgName, settings.ProgName, tool.Name, exampleArgs(*tool))
	return b.String(), nil
}

// tierName says what a tool may change, for people.
func tierName(t domain.Tool) string {
	switch {
	case t.ReadOnly():
		return "reads only; offered with --read-only"
	case t.OnlyAdds:
		return "only adds"
	case t.Tier == domain.TierDestructive:
		return "may delete or drop; snapshots first"
	}
	return "writes"
}

// argSummary is an argument's type, whether it is required, its bounds,
// default and aliases.
func argSummary(a domain.Arg, l domain.Limits) string {
	parts := []string{map[domain.ArgType]string{domain.ArgString: "string", domain.ArgInteger: "integer", domain.ArgBoolean: "boolean", domain.ArgStrings: "array of strings"}[a.Type]}
	if a.Required {
		parts = append(parts, "required")
	}
	if a.Bounds != nil {
		lo, hi := a.Bounds(l)
		parts = append(parts, fmt.Sprintf("%d to %d", lo, hi))
	}
	if a.Default != nil {
		v, _ := json.Marshal(a.Default(l))
		parts = append(parts, "default "+string(v))
	}
	if len(a.Aliases) > 0 {
		parts = append(parts, "also accepted as "+strings.Join(a.Aliases, ", "))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// exampleArgs is a JSON object of the tool's required arguments.
func exampleArgs(t domain.Tool) string {
	var parts []string
	for _, a := range t.Args {
		if a.Required {
			parts = append(parts, fmt.Sprintf("%q: ...", a.Name))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// wrap breaks text into lines of at most width characters (a longer word
// stands alone), each after indent.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	if len(line) > len(indent) {
		b.WriteString(line + "\n")
	}
	return b.String()
}
