package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// manifest is an MCP Bundle's manifest.json (spec 0.3): the fields these
// bundles use, in the order written.
type manifest struct {
	ManifestVersion string                `json:"manifest_version"`
	Name            string                `json:"name"`
	DisplayName     string                `json:"display_name"`
	Version         string                `json:"version"`
	Description     string                `json:"description"`
	Author          map[string]string     `json:"author"`
	License         string                `json:"license"`
	Keywords        []string              `json:"keywords"`
	Server          manifestServer        `json:"server"`
	UserConfig      map[string]userConfig `json:"user_config"`
	Tools           []manifestTool        `json:"tools"`
	Compatibility   map[string][]string   `json:"compatibility"`
}

type manifestServer struct {
	Type       string         `json:"type"`
	EntryPoint string         `json:"entry_point"`
	MCPConfig  map[string]any `json:"mcp_config"`
}

type userConfig struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Default     string `json:"default"`
}

type manifestTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// bundleTime is every bundle entry's time, so that a bundle's bytes depend
// only on its contents (the zip format's earliest date).
var bundleTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// bundleManifest is the manifest of b's bundle: the binary runs with the
// database path the user sets in Claude Desktop.
func bundleManifest(version string, b build) manifest {
	o, _ := b.npmOS()
	entry := "server/" + name + b.exe()
	var tools []manifestTool
	for _, t := range domain.Tools() {
		tools = append(tools, manifestTool{Name: t.Name, Description: t.Title})
	}
	return manifest{
		ManifestVersion: mcpbManifestVersion, Name: name, DisplayName: title, Version: version,
		Description: description, Author: map[string]string{"name": author}, License: license, Keywords: keywords,
		Server: manifestServer{Type: "binary", EntryPoint: entry, MCPConfig: map[string]any{
			"command": "${__dirname}/" + entry,
			"args":    []string{"--db", "${user_config.db}"},
		}},
		UserConfig: map[string]userConfig{"db": {
			Type: "file", Title: "Database file", Required: true, Default: "${HOME}/agent/memory.db",
			Description: "The SQLite file the agent works in and remembers in. It and its folders are created on first start; a file another tool made works too.",
		}},
		Tools:         tools,
		Compatibility: map[string][]string{"platforms": {o}},
	}
}

// writeBundle writes b's MCP Bundle to file: a zip of manifest.json, the
// two executables under server/ (the server finds the sidecar beside
// itself), LICENSE and README.md, in name order with fixed times.
func writeBundle(file, version string, b build) error {
	m, err := marshal(bundleManifest(version, b))
	if err != nil {
		return err
	}
	type entry struct {
		path string
		mode os.FileMode
		data []byte
	}
	entries := []entry{{path: "manifest.json", mode: 0o644, data: m}}
	for _, f := range []string{"LICENSE", "README.md"} {
		data, err := os.ReadFile(filepath.Join(b.dir, f))
		if err != nil {
			return err
		}
		entries = append(entries, entry{f, 0o644, data})
	}
	for _, bin := range b.binaries() {
		data, err := os.ReadFile(filepath.Join(b.dir, bin))
		if err != nil {
			return err
		}
		entries = append(entries, entry{"server/" + bin, 0o755, data})
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.path, Method: zip.Deflate, Modified: bundleTime}
		h.SetMode(e.mode)
		w, err := zw.CreateHeader(h)
		if err == nil {
			_, err = w.Write(e.data)
		}
		if err != nil {
			_ = f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
