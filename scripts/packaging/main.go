// Command packaging writes what installs the server without a Go
// toolchain, from the builds scripts/release.sh staged: one npm package per
// platform carrying the server and its replication sidecar, the
// mcp-sqlite-memory npm package whose launcher runs the platform's binary,
// one MCP Bundle (.mcpb) per platform for Claude Desktop, and server.json
// for the MCP registry (docs/decisions.md#packages). The release script
// runs it and then packs the npm folders with `npm pack`:
//
//	go run ./scripts/packaging -version V -stage DIR -npm DIR -out DIR
//
// -stage holds the release's folders, mcp-sqlite-memory_<V>_<os>_<arch>,
// each with both executables, LICENSE and README.md. The npm package
// folders go under -npm, the bundles and server.json into -out. The same
// stage and version give the same bytes.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "packaging:", err)
		os.Exit(1)
	}
}

func run(args []string, log io.Writer) error {
	fs := flag.NewFlagSet("packaging", flag.ContinueOnError)
	version := fs.String("version", "", "the release version, as in the staged folders' names")
	stage := fs.String("stage", "", "the folder holding the staged builds")
	npmDir := fs.String("npm", "", "where to write the npm package folders")
	out := fs.String("out", "", "where to write the bundles and server.json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" || *stage == "" || *npmDir == "" || *out == "" {
		return errors.New("-version, -stage, -npm and -out are all required")
	}
	builds, err := staged(*stage, *version)
	if err != nil {
		return err
	}
	v := npmVersion(*version)
	if err := writeNpm(*npmDir, v, builds); err != nil {
		return err
	}
	for _, b := range builds {
		file := filepath.Join(*out, filepath.Base(b.dir)+".mcpb")
		if err := writeBundle(file, v, b); err != nil {
			return err
		}
		fmt.Fprintln(log, "built", file)
	}
	if err := writeJSON(filepath.Join(*out, "server.json"), serverJSON(v)); err != nil {
		return err
	}
	fmt.Fprintf(log, "wrote %d npm packages under %s and %s\n", len(builds)+1, *npmDir, filepath.Join(*out, "server.json"))
	return nil
}

// build is one staged release folder.
type build struct {
	dir string
	target
}

// staged lists the stage's builds of version, sorted, each checked to hold
// what a package needs.
func staged(stage, version string) ([]build, error) {
	entries, err := os.ReadDir(stage)
	if err != nil {
		return nil, err
	}
	var builds []build
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), name+"_") {
			continue
		}
		t, err := parseTarget(e.Name(), version)
		if err != nil {
			return nil, err
		}
		b := build{filepath.Join(stage, e.Name()), t}
		for _, f := range append(b.binaries(), "LICENSE", "README.md") {
			if _, err := os.Stat(filepath.Join(b.dir, f)); err != nil {
				return nil, fmt.Errorf("the staged build %s lacks %s", b.dir, f)
			}
		}
		builds = append(builds, b)
	}
	if len(builds) == 0 {
		return nil, fmt.Errorf("no staged build of version %s in %s", version, stage)
	}
	sort.Slice(builds, func(i, j int) bool { return builds[i].dir < builds[j].dir })
	return builds, nil
}

// binaries are the executables' file names on the build's platform.
func (b build) binaries() []string {
	return []string{name + b.exe(), sidecar + b.exe()}
}

// writeJSON writes v indented, with a final newline and without HTML
// escaping (the bundle's ${...} placeholders stay readable).
func writeJSON(path string, v any) error {
	data, err := marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
