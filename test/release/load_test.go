package release_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// file is one file of a package, bundle or archive.
type file struct {
	mode fs.FileMode
	data []byte
}

// tree is a package's, bundle's or archive's files by slash path.
type tree map[string]file

// release is what scripts/release.sh writes, read back.
type release struct {
	npm      map[string]tree // by package name
	bundles  map[string]tree // by "goos/goarch"
	archives map[string]tree // by "goos/goarch"; only for a real release
	server   []byte
}

func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// releaseScript reads scripts/release.sh's default targets and the
// commands it builds for each.
func releaseScript(t *testing.T) (targets, commands []string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "release.sh"))
	require.NoError(t, err)
	m := regexp.MustCompile(`targets="\$\{TARGETS:-([^}]*)\}"`).FindSubmatch(src)
	require.NotNil(t, m, "release.sh must set its default targets as targets=\"${TARGETS:-...}\"")
	c := regexp.MustCompile(`for cmd in ([^;]+); do`).FindSubmatch(src)
	require.NotNil(t, c, "release.sh must build its commands in a `for cmd in ...; do` loop")
	return strings.Fields(string(m[1])), strings.Fields(string(c[1]))
}

// loadRelease reads the release in $RELEASE_DIST (CI points it at
// `scripts/release.sh ci-check`'s output), or else runs the packaging step
// of release.sh on stand-in binaries of every target release.sh builds.
func loadRelease(t *testing.T) release {
	t.Helper()
	if dist := os.Getenv("RELEASE_DIST"); dist != "" {
		return readDist(t, dist)
	}
	return fakeRelease(t)
}

func fakeRelease(t *testing.T) release {
	t.Helper()
	dir := t.TempDir()
	stage, npmDir, out := makeStage(t), filepath.Join(dir, "npm"), filepath.Join(dir, "out")
	runPackager(t, stage, npmDir, out)
	rel := release{npm: map[string]tree{}, bundles: map[string]tree{}}
	entries, err := os.ReadDir(npmDir)
	require.NoError(t, err)
	for _, e := range entries {
		rel.npm[e.Name()] = readDir(t, filepath.Join(npmDir, e.Name()))
	}
	readBundles(t, out, &rel)
	rel.server, err = os.ReadFile(filepath.Join(out, "server.json"))
	require.NoError(t, err)
	return rel
}

// fakeVersion is the release version of makeStage's builds.
const fakeVersion = "v9.8.7"

// makeStage lays out what release.sh stages before packaging: a folder per
// target it builds, holding a stand-in for each command, LICENSE and
// README.md.
func makeStage(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	targets, commands := releaseScript(t)
	stage := t.TempDir()
	for _, target := range targets {
		goos, goarch, _ := strings.Cut(target, "/")
		folder := filepath.Join(stage, "mcp-sqlite-memory_"+fakeVersion+"_"+goos+"_"+goarch)
		require.NoError(t, os.MkdirAll(folder, 0o755))
		for _, cmd := range commands {
			require.NoError(t, os.WriteFile(filepath.Join(folder, cmd+exe(goos)), []byte("stand-in for "+cmd+" "+target), 0o755))
		}
		for _, doc := range []string{"LICENSE", "README.md"} {
			data, err := os.ReadFile(filepath.Join(root, doc))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(folder, doc), data, 0o644))
		}
	}
	return stage
}

// runPackager runs release.sh's packaging step on stage.
func runPackager(t *testing.T, stage, npmDir, out string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(out, 0o755))
	cmd := exec.Command("go", "run", "./scripts/packaging", "-version", fakeVersion, "-stage", stage, "-npm", npmDir, "-out", out)
	cmd.Dir = repoRoot(t)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
}

func readDist(t *testing.T, dist string) release {
	t.Helper()
	rel := release{npm: map[string]tree{}, bundles: map[string]tree{}, archives: map[string]tree{}}
	tgz, err := filepath.Glob(filepath.Join(dist, "mcp-sqlite-memory-*.tgz"))
	require.NoError(t, err)
	for _, path := range tgz {
		files := readTarGz(t, path, "package/")
		var pj struct{ Name string }
		require.NoError(t, json.Unmarshal(files["package.json"].data, &pj), path)
		rel.npm[pj.Name] = files
	}
	archives, err := filepath.Glob(filepath.Join(dist, "mcp-sqlite-memory_*.tar.gz"))
	require.NoError(t, err)
	for _, path := range archives {
		base := strings.TrimSuffix(filepath.Base(path), ".tar.gz")
		rel.archives[targetOf(base)] = readTarGz(t, path, base+"/")
	}
	readBundles(t, dist, &rel)
	rel.server, err = os.ReadFile(filepath.Join(dist, "server.json"))
	require.NoError(t, err)
	return rel
}

func readBundles(t *testing.T, dir string, rel *release) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "mcp-sqlite-memory_*.mcpb"))
	require.NoError(t, err)
	for _, path := range paths {
		zr, err := zip.OpenReader(path)
		require.NoError(t, err)
		files := tree{}
		for _, f := range zr.File {
			r, err := f.Open()
			require.NoError(t, err)
			data, err := io.ReadAll(r)
			require.NoError(t, err)
			files[f.Name] = file{f.Mode(), data}
		}
		require.NoError(t, zr.Close())
		rel.bundles[targetOf(strings.TrimSuffix(filepath.Base(path), ".mcpb"))] = files
	}
}

// targetOf is "goos/goarch" from a release file name's ..._<os>_<arch>.
func targetOf(base string) string {
	parts := strings.Split(base, "_")
	return parts[len(parts)-2] + "/" + parts[len(parts)-1]
}

func readDir(t *testing.T, dir string) tree {
	t.Helper()
	files := tree{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = file{info.Mode(), data}
		return err
	}))
	return files
}

func readTarGz(t *testing.T, path, prefix string) tree {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	files := tree{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, path)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		name, ok := strings.CutPrefix(h.Name, prefix)
		require.True(t, ok, "%s: %s is outside %s", path, h.Name, prefix)
		files[name] = file{h.FileInfo().Mode(), data}
	}
	return files
}

func exe(goos string) string {
	if goos == "windows" {
		return ".exe"
	}
	return ""
}

// node names an os and architecture as Node.js does (process.platform,
// process.arch), which is how npm's os and cpu fields and the bundle's
// platforms name them.
func node(goos, goarch string) (platform, arch string) {
	platform, arch = goos, goarch
	if goos == "windows" {
		platform = "win32"
	}
	if goarch == "amd64" {
		arch = "x64"
	}
	return platform, arch
}
