// Package release_test checks what scripts/release.sh ships beside the
// archives (docs/decisions.md#packages): the npm packages, the MCP Bundles
// and server.json agree with each other and with the release script on the
// name, version, description, targets and binaries; server.json validates
// against the MCP registry's schema; the npm launcher passes arguments,
// output, exit status and signals through; and, in CI, the packages
// installed from their tarballs complete an MCP handshake through npx.
package release_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type packageJSON struct {
	Name                 string
	Version              string
	Description          string
	MCPName              string `json:"mcpName"`
	OS                   []string
	CPU                  []string
	Bin                  map[string]string
	OptionalDependencies map[string]string
}

type serverJSON struct {
	Schema      string `json:"$schema"`
	Name        string
	Description string
	Version     string
	Packages    []struct {
		RegistryType     string
		Identifier       string
		Version          string
		Transport        struct{ Type string }
		PackageArguments []struct{ Name string }
	}
}

type manifest struct {
	Name, Version, Description string
	Server                     struct {
		Type       string
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string
			Args    []string
		} `json:"mcp_config"`
	}
	UserConfig    map[string]struct{ Type string } `json:"user_config"`
	Tools         []struct{ Name string }
	Compatibility struct{ Platforms []string }
}

func decode[T any](t *testing.T, what string, data []byte) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(data, &v), "%s: %s", what, data)
	return v
}

// TestReleaseAgrees: every file a user installs from says the same thing.
func TestReleaseAgrees(t *testing.T) {
	rel := loadRelease(t)
	targets, commands := releaseScript(t)

	main, ok := rel.npm["mcp-sqlite-memory"]
	require.True(t, ok, "no mcp-sqlite-memory npm package among %v", keys(rel.npm))
	pj := decode[packageJSON](t, "mcp-sqlite-memory's package.json", main["package.json"].data)
	version := pj.Version
	require.NotEmpty(t, version)
	assert.NotEmpty(t, pj.Description)
	launcher := pj.Bin["mcp-sqlite-memory"]
	assert.Contains(t, main, launcher, "the bin entry must be in the package")
	for _, doc := range []string{"LICENSE", "README.md"} {
		assert.Contains(t, main, doc)
	}

	srv := decode[serverJSON](t, "server.json", rel.server)
	assert.Equal(t, pj.MCPName, srv.Name, "the registry accepts the npm package only when its mcpName is server.json's name")
	assert.Equal(t, version, srv.Version)
	assert.Equal(t, pj.Description, srv.Description)
	if assert.Len(t, srv.Packages, 1) {
		p := srv.Packages[0]
		assert.Equal(t, "npm", p.RegistryType)
		assert.Equal(t, pj.Name, p.Identifier)
		assert.Equal(t, version, p.Version)
		assert.Equal(t, "stdio", p.Transport.Type)
		if assert.Len(t, p.PackageArguments, 1) {
			assert.Equal(t, "--db", p.PackageArguments[0].Name)
		}
	}

	var tools []string
	for _, tool := range domain.Tools() {
		tools = append(tools, tool.Name)
	}
	wantPackages := map[string]string{}
	for _, target := range targets {
		goos, goarch, _ := strings.Cut(target, "/")
		platform, arch := node(goos, goarch)
		name := "mcp-sqlite-memory-" + platform + "-" + arch
		wantPackages[name] = version
		t.Run(target, func(t *testing.T) {
			pkg, ok := rel.npm[name]
			require.True(t, ok, "no npm package %s", name)
			ppj := decode[packageJSON](t, name+"'s package.json", pkg["package.json"].data)
			assert.Equal(t, version, ppj.Version)
			assert.Equal(t, []string{platform}, ppj.OS, "npm installs the package only on its os")
			assert.Equal(t, []string{arch}, ppj.CPU, "npm installs the package only on its cpu")
			for _, cmd := range commands {
				bin, ok := pkg["bin/"+cmd+exe(goos)]
				if assert.True(t, ok, "%s lacks bin/%s%s (the launcher runs the server there; the sidecar must be beside it)", name, cmd, exe(goos)) {
					assert.Equal(t, os.FileMode(0o755), bin.mode.Perm(), "bin/%s", cmd)
				}
			}

			bundle, ok := rel.bundles[target]
			require.True(t, ok, "no MCP Bundle for %s", target)
			m := decode[manifest](t, target+" manifest.json", bundle["manifest.json"].data)
			assert.Equal(t, pj.Name, m.Name)
			assert.Equal(t, version, m.Version)
			assert.Equal(t, pj.Description, m.Description)
			assert.Equal(t, "binary", m.Server.Type)
			assert.Equal(t, "server/mcp-sqlite-memory"+exe(goos), m.Server.EntryPoint)
			assert.Equal(t, "${__dirname}/"+m.Server.EntryPoint, m.Server.MCPConfig.Command)
			for _, cmd := range commands {
				bin, ok := bundle["server/"+cmd+exe(goos)]
				if assert.True(t, ok, "the bundle lacks server/%s%s", cmd, exe(goos)) {
					assert.Equal(t, os.FileMode(0o755), bin.mode.Perm(), "server/%s", cmd)
					assert.Equal(t, pkg["bin/"+cmd+exe(goos)].data, bin.data, "the bundle and the npm package carry the same %s", cmd)
				}
			}
			if assert.Len(t, m.Server.MCPConfig.Args, 2) {
				assert.Equal(t, "--db", m.Server.MCPConfig.Args[0])
				key, ok := strings.CutPrefix(m.Server.MCPConfig.Args[1], "${user_config.")
				key, ok2 := strings.CutSuffix(key, "}")
				if assert.True(t, ok && ok2, "the database path must be a user setting: %s", m.Server.MCPConfig.Args[1]) {
					assert.Contains(t, []string{"file", "directory", "string"}, m.UserConfig[key].Type)
				}
			}
			assert.Equal(t, []string{platform}, m.Compatibility.Platforms)
			var names []string
			for _, tool := range m.Tools {
				names = append(names, tool.Name)
			}
			assert.Equal(t, tools, names, "the bundle lists the server's tools")
			for _, doc := range []string{"LICENSE", "README.md"} {
				assert.Contains(t, bundle, doc)
			}

			if rel.archives != nil {
				archive, ok := rel.archives[target]
				require.True(t, ok, "no archive for %s", target)
				for _, f := range append([]string{"LICENSE", "README.md"}, suffixed(commands, exe(goos))...) {
					assert.Contains(t, archive, f, "the %s archive", target)
				}
				for _, cmd := range commands {
					assert.Equal(t, archive[cmd+exe(goos)].data, pkg["bin/"+cmd+exe(goos)].data, "the archive and the npm package carry the same %s", cmd)
				}
			}
		})
	}
	assert.Equal(t, wantPackages, pj.OptionalDependencies, "the main package depends on exactly the platform packages, at its version")
	assert.Len(t, keys(rel.npm), len(targets)+1, "one npm package per target and the main one")
	assert.Len(t, keys(rel.bundles), len(targets), "one bundle per target")
}

// registrySchema is the SHA-256 of testdata/server.schema.json, a copy of
// https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json
// (CI has no network to fetch it). A newer schema is a deliberate change:
// replace the file, this sum and serverSchema in scripts/packaging together.
const registrySchema = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"

// TestServerJSONValidates: server.json follows the registry's published
// schema, the one it names in $schema.
func TestServerJSONValidates(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "server.schema.json"))
	require.NoError(t, err)
	sum := sha256.Sum256(raw)
	require.Equal(t, registrySchema, hex.EncodeToString(sum[:]), "testdata/server.schema.json is not the pinned copy")
	var schema jsonschema.Schema
	require.NoError(t, json.Unmarshal(raw, &schema))
	resolved, err := schema.Resolve(nil)
	require.NoError(t, err)

	rel := loadRelease(t)
	srv := decode[serverJSON](t, "server.json", rel.server)
	assert.Equal(t, schema.ID, srv.Schema, "server.json names the schema it is checked against")
	doc := decode[map[string]any](t, "server.json", rel.server)
	assert.NoError(t, resolved.Validate(doc))

	// The check can fail: the registry's own rules, broken one at a time.
	for field, bad := range map[string]any{
		"name":        "no-namespace",
		"description": strings.Repeat("x", 101),
		"packages":    []any{map[string]any{"registryType": "npm", "identifier": "x", "version": "latest", "transport": map[string]any{"type": "stdio"}}},
	} {
		broken := decode[map[string]any](t, "server.json", rel.server)
		broken[field] = bad
		assert.Error(t, resolved.Validate(broken), "server.json with %s = %v", field, bad)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func suffixed(names []string, suffix string) []string {
	var out []string
	for _, n := range names {
		out = append(out, fmt.Sprint(n, suffix))
	}
	return out
}

// TestPackagingIsReproducible: the same builds give the same bundles,
// server.json and npm package files, whatever the files' times.
func TestPackagingIsReproducible(t *testing.T) {
	stage := makeStage(t)
	a, b := t.TempDir(), t.TempDir()
	runPackager(t, stage, filepath.Join(a, "npm"), filepath.Join(a, "out"))
	later := time.Now().Add(time.Hour)
	require.NoError(t, filepath.WalkDir(stage, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(path, later, later)
	}))
	runPackager(t, stage, filepath.Join(b, "npm"), filepath.Join(b, "out"))
	for _, sub := range []string{"out", "npm"} {
		first, second := readDir(t, filepath.Join(a, sub)), readDir(t, filepath.Join(b, sub))
		require.NotEmpty(t, first)
		assert.Equal(t, keys(first), keys(second))
		for path, f := range first {
			assert.True(t, bytes.Equal(f.data, second[path].data), "%s/%s differs between two runs", sub, path)
			assert.Equal(t, f.mode, second[path].mode, "%s/%s", sub, path)
		}
	}
}
