package main

import (
	"fmt"
	"regexp"
	"strings"
)

// What every install says about the server: the npm packages, the MCP
// Bundles and server.json all read these, so they cannot disagree.
const (
	// name is the server's command, its npm package and its bundle.
	name = "mcp-sqlite-memory"
	// sidecar is the replication helper, kept beside the server (the
	// server looks for it in its own folder).
	sidecar = "mcp-sqlite-memory-replicate"
	// registryName is the server's name in the MCP registry; the npm
	// package's mcpName must equal it for the registry to accept it.
	registryName = "io.github.mcp-sqlite-memory/mcp-sqlite-memory"
	// title is what a client shows instead of the name.
	title = "SQLite memory"
	// description is at most 100 characters (the registry's limit).
	description = "One SQLite file as a coding agent's SQL tool and memory: enforced SQL tiers, hash-chained log"
	license     = "MIT"
	author      = "The mcp-sqlite-memory authors"
	// serverSchema is the registry schema server.json follows; a copy is
	// in test/release/testdata.
	serverSchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
	// mcpbManifestVersion is the MCP Bundle manifest spec the bundles follow.
	mcpbManifestVersion = "0.3"
)

var keywords = []string{"mcp", "mcp-server", "sqlite", "memory", "agent", "sql"}

// target is one release build: a Go GOOS/GOARCH pair.
type target struct{ goos, goarch string }

// parseTarget reads the os and architecture out of a staged folder's name,
// mcp-sqlite-memory_<version>_<os>_<arch>.
func parseTarget(folder, version string) (target, error) {
	rest, ok := strings.CutPrefix(folder, name+"_"+version+"_")
	goos, goarch, ok2 := strings.Cut(rest, "_")
	if !ok || !ok2 {
		return target{}, fmt.Errorf("%s is not a staged build of version %s (%s_%s_<os>_<arch>)", folder, version, name, version)
	}
	t := target{goos, goarch}
	if _, err := t.npmOS(); err != nil {
		return target{}, err
	}
	if _, err := t.npmCPU(); err != nil {
		return target{}, err
	}
	return t, nil
}

// npmOS is the target's operating system as Node.js names it
// (process.platform, npm's "os", the bundle's platforms).
func (t target) npmOS() (string, error) {
	switch t.goos {
	case "linux", "darwin":
		return t.goos, nil
	case "windows":
		return "win32", nil
	}
	return "", fmt.Errorf("GOOS %s has no Node.js platform name here: add it to scripts/packaging/meta.go", t.goos)
}

// npmCPU is the target's architecture as Node.js names it (process.arch,
// npm's "cpu").
func (t target) npmCPU() (string, error) {
	switch t.goarch {
	case "amd64":
		return "x64", nil
	case "arm64":
		return "arm64", nil
	}
	return "", fmt.Errorf("GOARCH %s has no Node.js architecture name here: add it to scripts/packaging/meta.go", t.goarch)
}

// exe is the executables' suffix on the target.
func (t target) exe() string {
	if t.goos == "windows" {
		return ".exe"
	}
	return ""
}

// packageName is the target's npm package: the launcher in the main
// package looks for name-<process.platform>-<process.arch>.
func (t target) packageName() string {
	o, _ := t.npmOS()
	c, _ := t.npmCPU()
	return name + "-" + o + "-" + c
}

var semver = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// npmVersion is the release version as npm, the bundle and the registry
// take it: v1.2.3 is 1.2.3, and a version that is not semantic (a commit,
// "ci-check") becomes a pre-release of 0.0.0.
func npmVersion(version string) string {
	if v, ok := strings.CutPrefix(version, "v"); ok && semver.MatchString(v) {
		return v
	}
	if semver.MatchString(version) {
		return version
	}
	return "0.0.0-" + strings.NewReplacer("_", "-", "+", "-").Replace(version)
}
