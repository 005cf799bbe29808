package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The replication sidecar: Litestream lives in its own executable
// (cmd/mcp-sqlite-memory-replicate), so that linking it (its metrics and
// cloud SDK packages, whose init runs at every start) costs the server's
// start nothing. The server runs it as a child process for --replicate and
// for the restore subcommand.
const (
	// sidecarName is the sidecar's executable name (plus .exe on Windows).
	sidecarName = settings.SidecarName
	// envReplicator names the sidecar's executable explicitly.
	envReplicator = settings.EnvReplicator
	// sidecarModule is what `go install` takes.
	sidecarModule = "github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory-replicate"
	// sidecarStopWait bounds the sidecar's last sync at shutdown: its own
	// bound (5 s, plus a second) and a margin; after it the sidecar is
	// killed.
	sidecarStopWait = 10 * time.Second
)

// sidecarControl is one line of the sidecar's stdout (its control type).
type sidecarControl struct {
	Ready bool   `json:"ready"`
	Done  bool   `json:"done"`
	Error string `json:"error"`
	Usage bool   `json:"usage"`
}

// findSidecar returns the sidecar's path: $MCP_SQLITE_REPLICATOR, else the
// file beside this executable, else the one on PATH. Missing, the error
// says how to install it; why names the setting that needs it.
func findSidecar(getenv func(string) string, why string) (string, error) {
	name := sidecarName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if p := getenv(envReplicator); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w; name the %s executable there, or unset it to use the one beside this executable or on PATH", envReplicator, p, err, sidecarName)
		}
		return p, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(sidecarName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s needs %s, the replication helper, beside this executable or on PATH: install it with `go install %s@latest`, "+
		"or copy it from the release archive (or name it in %s)", why, sidecarName, sidecarModule, envReplicator)
}

// sidecarProc is a started sidecar.
type sidecarProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	control *bufio.Scanner
	logged  sync.WaitGroup // the stderr forwarder
}

// sidecarEnv is what the sidecar needs from the server's environment
// beyond every child's base (domain.ChildEnv: PATH, HOME, TMPDIR, locale,
// time zone): the S3 replica's credentials, region, profile and endpoint
// (AWS_*, as the AWS SDK reads them, and Litestream's own LITESTREAM_*
// names for the keys), the proxy and CA settings of its HTTPS requests, and
// the Go runtime's tuning. Not the bearer token, not the server's other
// settings: the replica URL is handed over explicitly.
var sidecarEnv = []string{
	"AWS_*", "LITESTREAM_*",
	"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"GOMAXPROCS", "GOMEMLIMIT", "GOGC", "GODEBUG", "GOTRACEBACK", "GORACE", "GOCOVERDIR",
}

// startSidecar runs the sidecar at path with args, the replica URL in its
// environment (not on its command line, which other users can read), which
// is otherwise only the allow-listed part of this process's (sidecarEnv).
// Its stderr lines are copied to stderr, its stdout is read for control
// lines.
func startSidecar(path, url string, args []string, stderr io.Writer) (*sidecarProc, error) {
	cmd := exec.Command(path, append(args[:1:1], append([]string{"-control"}, args[1:]...)...)...)
	cmd.Env = append(domain.ChildEnv(os.Environ(), sidecarEnv...), settings.EnvReplicate+"="+url)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	p := &sidecarProc{cmd: cmd, stdin: stdin, control: bufio.NewScanner(stdout)}
	p.logged.Add(1)
	go func() {
		defer p.logged.Done()
		lines := bufio.NewScanner(errPipe)
		lines.Buffer(make([]byte, 0, 4096), 1<<20)
		for lines.Scan() {
			_, _ = fmt.Fprintln(stderr, lines.Text())
		}
	}()
	return p, nil
}

// next reads the sidecar's next control line; an ended stdout is an error
// that says so.
func (p *sidecarProc) next() (sidecarControl, error) {
	var c sidecarControl
	if !p.control.Scan() {
		return c, fmt.Errorf("%s stopped without a word; its log is above", sidecarName)
	}
	if err := json.Unmarshal(p.control.Bytes(), &c); err != nil {
		return c, fmt.Errorf("%s answered %q: %w", sidecarName, p.control.Text(), err)
	}
	return c, nil
}

// stop ends the sidecar: its stdin is closed (it then syncs once more and
// exits), and after sidecarStopWait it is killed. It waits for the exit
// and for the last log line.
func (p *sidecarProc) stop() error {
	_ = p.stdin.Close()
	t := time.AfterFunc(sidecarStopWait, func() { _ = p.cmd.Process.Kill() })
	defer t.Stop()
	for p.control.Scan() { // to the end: Wait must follow the last read
	}
	p.logged.Wait()
	return p.cmd.Wait()
}

// wait waits for a sidecar that ends on its own (restore).
func (p *sidecarProc) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = p.cmd.Process.Kill()
		case <-done:
		}
	}()
	defer close(done)
	for p.control.Scan() {
	}
	p.logged.Wait()
	return p.cmd.Wait()
}

// sidecarError is an error the sidecar reported on its control line;
// usage marks one about what it was given (a URL Litestream refuses).
type sidecarError struct {
	msg   string
	usage bool
}

// Error is the sidecar's one-line reason.
func (e *sidecarError) Error() string { return e.msg }

// controlError turns an error control line into an error.
func controlError(c sidecarControl) error {
	return &sidecarError{msg: strings.TrimSpace(c.Error), usage: c.Usage}
}
