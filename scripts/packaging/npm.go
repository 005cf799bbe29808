package main

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// launcher is the main npm package's command: it runs the binary of the
// platform package npm installed.
//
//go:embed launcher.js
var launcher []byte

// packageJSON is the part of npm's package.json these packages use, in
// the order written.
type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license"`
	Author               string            `json:"author"`
	MCPName              string            `json:"mcpName,omitempty"`
	Keywords             []string          `json:"keywords,omitempty"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	Bin                  map[string]string `json:"bin,omitempty"`
	Files                []string          `json:"files"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
}

// writeNpm writes one folder per platform package and one for the main
// package under dir. npm installs only the platform package whose os and
// cpu match the machine (optional dependencies), from the registry's
// tarball: nothing is downloaded or run at install time.
func writeNpm(dir, version string, builds []build) error {
	optional := map[string]string{}
	for _, b := range builds {
		o, _ := b.npmOS()
		c, _ := b.npmCPU()
		pkg := b.packageName()
		optional[pkg] = version
		p := filepath.Join(dir, pkg)
		if err := os.MkdirAll(filepath.Join(p, "bin"), 0o755); err != nil {
			return err
		}
		for _, bin := range b.binaries() {
			if err := copyFile(filepath.Join(b.dir, bin), filepath.Join(p, "bin", bin), 0o755); err != nil {
				return err
			}
		}
		if err := copyDocs(b.dir, p); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(p, "package.json"), packageJSON{
			Name: pkg, Version: version, License: license, Author: author,
			Description: fmt.Sprintf("The %s %s build of %s (the server and its replication sidecar); install %s, which runs it", o, c, name, name),
			OS:          []string{o}, CPU: []string{c},
			Files: []string{"bin"}, PreferUnplugged: true,
		}); err != nil {
			return err
		}
	}
	main := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Join(main, "bin"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(main, "bin", name+".js"), launcher, 0o755); err != nil {
		return err
	}
	if err := copyDocs(builds[0].dir, main); err != nil {
		return err
	}
	return writeJSON(filepath.Join(main, "package.json"), packageJSON{
		Name: name, Version: version, Description: description, License: license, Author: author,
		MCPName: registryName, Keywords: keywords,
		Bin:     map[string]string{name: "bin/" + name + ".js"},
		Files:   []string{"bin"},
		Engines: map[string]string{"node": ">=18"}, OptionalDependencies: optional,
	})
}

// copyDocs copies LICENSE and README.md from a staged build into dir.
func copyDocs(from, dir string) error {
	for _, f := range []string{"LICENSE", "README.md"} {
		if err := copyFile(filepath.Join(from, f), filepath.Join(dir, f), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string, mode os.FileMode) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.WriteFile(to, data, mode); err != nil {
		return err
	}
	return os.Chmod(to, mode) // WriteFile's mode passes through the umask
}
