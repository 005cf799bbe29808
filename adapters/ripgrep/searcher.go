// Package ripgrep is the text search engine that runs the rg binary. Lines
// are streamed to `rg --json` on stdin (they never touch the disk), and its
// JSON output is read back as it comes, so memory stays flat however many
// lines are searched.
package ripgrep

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

var _ ports.TextSearcher = (*Searcher)(nil)

const (
	// waitDelay bounds how long Wait waits for rg's pipes once it was killed.
	waitDelay = 2 * time.Second
	// maxStderr caps how much of rg's stderr is kept for messages.
	maxStderr = 2048
)

// Searcher is the ripgrep [ports.TextSearcher]. It holds only the binary's
// path, so one Searcher serves concurrent calls (one rg process each).
type Searcher struct {
	rgPath string
}

// New returns a Searcher that runs the rg binary at rgPath (found by the
// caller, e.g. with exec.LookPath; a bare name is looked up on PATH).
func New(rgPath string) *Searcher {
	if rgPath == "" {
		panic("ripgrep.New: empty rg path")
	}
	return &Searcher{rgPath: rgPath}
}

// Name returns "ripgrep".
func (s *Searcher) Name() string { return "ripgrep" }

// Search runs `rg --json --no-config --text --encoding none
// [--ignore-case] [--fixed-strings] --regexp <pattern> -` and streams the
// lines to its stdin. Each line goes through [domain.SearchLine] first (a
// no-op for lines that already are search lines), so line numbers map back
// to indexes, and the reported Text is that line. Both lines and found run
// on the caller's goroutine, never concurrently with each other.
//
// Errors: [domain.ErrInvalidArgument] for a pattern ripgrep rejects (with
// its message and what to do); [domain.ErrTimeout] when ctx expires (rg is
// killed); [domain.ErrUnavailable] when rg cannot be started;
// [domain.ErrSearch] when rg fails otherwise; the error found returns, as
// is (rg is killed).
func (s *Searcher) Search(ctx context.Context, q domain.SearchQuery, lines iter.Seq[string], found func(domain.LineMatch) error) error {
	if err := q.Validate(); err != nil {
		return err
	}
	pattern := q.Pattern
	if !q.FixedStrings {
		var err error
		if pattern, err = perLine(pattern); err != nil {
			return err
		}
	}
	limit := domain.TimeLeft(ctx)
	if ctx.Err() != nil {
		return timeoutError(ctx, limit)
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, err := s.start(ctx, runCtx, args(q, pattern), limit)
	if err != nil {
		return err
	}
	r := &run{q: newQueue(), found: found}
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		readMatches(p.stdout, r.q, func() int { return int(r.longest.Load()) })
	}()
	waited := false
	defer func() {
		if !waited { // lines or found panicked: still reap rg and the reader
			cancel()
			<-readerDone
			_ = p.cmd.Wait()
		}
		_ = killGroup(p.cmd) // children that outlived rg (a --rg script's)
	}()

	fed, writeErr := r.feed(ctx, p.stdin, lines)
	_ = p.stdin.Close()
	if r.stopped() {
		cancel() // a write error needs none: rg stopped reading and is exiting
	}
	r.drain(ctx, cancel)
	<-readerDone
	waitErr := p.cmd.Wait()
	waited = true
	return r.outcome(ctx, limit, fed, writeErr, waitErr, p.stderr.String())
}

// rgProcess is a started rg with its pipes.
type rgProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *cappedBuffer
}

// start starts rg with argv in its own process group; runCtx kills it.
// ctx is the call's: when it has expired, a failure to start is the
// call's timeout.
func (s *Searcher) start(ctx, runCtx context.Context, argv []string, limit time.Duration) (*rgProcess, error) {
	cmd := exec.CommandContext(runCtx, s.rgPath, argv...)
	// rg reads its input from stdin and runs with --no-config: it needs no
	// variable beyond every child's base, and gets no other (a secret in
	// the server's environment stays there).
	cmd.Env = domain.ChildEnv(os.Environ())
	cmd.WaitDelay = waitDelay
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, domain.Errorf(domain.ErrSearch, "ripgrep could not be started: %v", innermost(err))
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, domain.Errorf(domain.ErrSearch, "ripgrep could not be started: %v", innermost(err))
	}
	stderr := &cappedBuffer{max: maxStderr}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return nil, timeoutError(ctx, limit)
		}
		return nil, domain.Errorf(domain.ErrUnavailable, "ripgrep (rg) could not be started (%v); install it or start the server with --rg PATH", innermost(err))
	}
	return &rgProcess{cmd: cmd, stdin: stdin, stdout: stdout, stderr: stderr}, nil
}

// outcome is the search's result once rg has exited: found's own error
// first, then the call's timeout (unless every line was fed and rg ended
// normally before it), then a broken output stream, then rg's exit.
func (r *run) outcome(ctx context.Context, limit time.Duration, fed bool, writeErr, waitErr error, stderr string) error {
	switch {
	case r.foundErr != nil:
		return r.foundErr
	case ctx.Err() != nil && !(fed && writeErr == nil && exitedNormally(waitErr)):
		return timeoutError(ctx, limit)
	case r.readErr != nil:
		return domain.Errorf(domain.ErrSearch, "ripgrep failed: %v", r.readErr)
	case exitedNormally(waitErr) && writeErr != nil:
		return domain.Errorf(domain.ErrSearch, "ripgrep stopped reading its input: %v", innermost(writeErr))
	case exitedNormally(waitErr):
		return nil
	}
	return exitError(waitErr, stderr)
}

func args(q domain.SearchQuery, pattern string) []string {
	a := []string{"--json", "--no-config", "--text", "--encoding", "none", "--line-number"}
	if q.IgnoreCase {
		a = append(a, "--ignore-case")
	}
	if q.FixedStrings {
		a = append(a, "--fixed-strings")
	}
	return append(a, "--regexp", pattern, "-")
}

// run is the caller's side of one search: it feeds rg and hands matches on.
type run struct {
	q        *queue
	found    func(domain.LineMatch) error
	spare    []domain.LineMatch
	longest  atomic.Int64 // the longest line fed, with its '\n'
	foundErr error
	readErr  error
	done     bool
}

// feed writes the lines to rg's stdin, handing queued matches to found
// between lines. fed is false when it stopped early (ctx expired, found or
// the reader failed, or rg stopped reading: writeErr).
func (r *run) feed(ctx context.Context, stdin io.Writer, lines iter.Seq[string]) (fed bool, writeErr error) {
	w := bufio.NewWriterSize(stdin, 64<<10)
	expired := ctx.Done()
	for line := range lines {
		select {
		case <-expired:
			return false, nil
		default:
		}
		line = domain.SearchLine(line)
		if n := int64(len(line) + 1); n > r.longest.Load() {
			r.longest.Store(n) // only this goroutine writes it
		}
		if _, err := w.WriteString(line); err != nil {
			return false, err
		}
		if err := w.WriteByte('\n'); err != nil {
			return false, err
		}
		select {
		case <-r.q.ready:
			if r.deliver(); r.stopped() {
				return false, nil
			}
		default:
		}
	}
	return true, w.Flush()
}

// drain hands on the remaining matches until the reader has finished.
func (r *run) drain(ctx context.Context, cancel context.CancelFunc) {
	expired := ctx.Done()
	for r.deliver(); !r.done; r.deliver() {
		select {
		case <-r.q.ready:
		case <-expired:
			expired = nil
			cancel()
		}
		if r.stopped() {
			cancel()
		}
	}
}

// deliver passes the queued matches to found, until found fails.
func (r *run) deliver() {
	items, done, err := r.q.take(r.spare)
	for _, m := range items {
		if r.foundErr == nil {
			r.foundErr = r.found(m)
		}
	}
	r.spare = items
	if done {
		r.done, r.readErr = true, err
	}
}

func (r *run) stopped() bool { return r.foundErr != nil || r.readErr != nil }

// exitedNormally reports rg's "matches" (0) and "no match" (1) statuses.
func exitedNormally(err error) bool {
	var ee *exec.ExitError
	return err == nil || errors.As(err, &ee) && ee.ExitCode() == 1
}

// exitError turns any other end of rg into a domain error. rg exits with 2
// on an error; a regex it cannot parse is the one the agent can fix.
func exitError(waitErr error, stderr string) error {
	msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr), "rg: "))
	code := -1
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		code = ee.ExitCode()
	}
	if msg == "" {
		msg = fmt.Sprintf("exit code %d", code)
		if code < 0 {
			msg = innermost(waitErr).Error()
		}
	}
	if code == 2 && strings.Contains(msg, "regex") {
		return patternError(msg)
	}
	return domain.Errorf(domain.ErrSearch, "ripgrep failed: %s", rgFirstParagraph(msg))
}

// patternError translates rg's refusal of a pattern into the advice the
// built-in engine gives for the same construct. rg's own advice ("Consider
// enabling PCRE2 with the --pcre2 flag") names a flag the agent cannot pass,
// so only rg's one-line "error: ..." diagnosis is kept.
func patternError(msg string) error {
	what := ""
	for line := range strings.Lines(msg) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "error: "); ok {
			what = rest
			break
		}
	}
	switch {
	case strings.Contains(msg, "not allowed in a regex"):
		return domain.LineBreakError()
	case strings.Contains(what, "look-around"):
		return domain.LookaroundError()
	case strings.Contains(what, "backreference"):
		return domain.BackreferenceError()
	case strings.Contains(what, "unclosed counted repetition"):
		return domain.Errorf(domain.ErrInvalidArgument, `invalid regex: %s; a literal { must be escaped as \{ (a bare { starts a repetition such as {2,5})`, what)
	case what == "":
		what = rgFirstParagraph(msg)
	}
	return domain.Errorf(domain.ErrInvalidArgument,
		"invalid regex: %s; fix the regex (Rust regex syntax: no lookaround or backreferences) or pass fixed_strings=true", what)
}

// rgFirstParagraph is rg's message up to its first blank line: what went
// wrong, without the advice that follows, which is about rg's own flags.
func rgFirstParagraph(msg string) string {
	if i := strings.Index(msg, "\n\n"); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}

// innermost unwraps err to its root cause, which names no path.
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

func timeoutError(ctx context.Context, limit time.Duration) error {
	if _, ok := ctx.Deadline(); !ok || errors.Is(ctx.Err(), context.Canceled) {
		return domain.Errorf(domain.ErrTimeout, "the search was cancelled before it finished")
	}
	return domain.Errorf(domain.ErrTimeout, "ripgrep exceeded %ss and was cancelled; narrow the WHERE filter", domain.FormatSeconds(limit))
}

// cappedBuffer keeps the first max bytes written to it.
type cappedBuffer struct {
	max int
	b   []byte
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string { return string(c.b) }
