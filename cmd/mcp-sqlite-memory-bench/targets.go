package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// session is one running process of a target that answers SQL.
type session interface {
	// query runs one statement and returns its answer; wantRows, when
	// positive, is the row count the answer must hold (checked roughly, by
	// lines, so a capped or failed answer is not timed as a fast one).
	query(ctx context.Context, sql string, limit, wantRows int) error
	close()
}

// target starts sessions of one contender on a database file.
type target struct {
	name string
	// floor marks the do-nothing server: its answers are not checked.
	floor bool
	// concurrent is whether one session takes overlapping calls.
	concurrent bool
	start      func(ctx context.Context, db string) (session, error)
	// raw, for MCP servers, starts a session driven by the raw JSON-RPC
	// load generator (rawclient.go) instead of the SDK's client.
	raw func(ctx context.Context, db string) (session, error)
}

// mcpTarget runs argv (with {db} replaced by the database path) as an MCP
// server on stdio through the SDK's client.
func mcpTarget(name string, floor bool, argv ...string) target {
	raw := func(ctx context.Context, db string) (session, error) { return rawStart(ctx, argv, floor, db) }
	return target{name: name, floor: floor, concurrent: true, raw: raw, start: func(ctx context.Context, db string) (session, error) {
		args := make([]string, len(argv))
		for i, a := range argv {
			args[i] = strings.ReplaceAll(a, "{db}", db)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stderr = io.Discard
		client := mcp.NewClient(&mcp.Implementation{Name: "mcp-sqlite-memory-bench", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		s := &mcpSession{cs: cs, floor: floor}
		if err := s.pickTool(ctx); err != nil {
			cs.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return s, nil
	}}
}

type mcpSession struct {
	cs    *mcp.ClientSession
	floor bool
	queryTool
}

// queryTool is the tool a session calls for SQL: its name, its SQL
// argument ("query" or "sql") and its limit argument ("" when it takes none).
type queryTool struct{ tool, arg, lim string }

// listedTool is one entry of a tools/list answer, as pickQueryTool reads it.
type listedTool struct {
	Name        string `json:"name"`
	InputSchema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"inputSchema"`
}

// pickQueryTool finds the query tool: read_query when offered, else the
// first tool whose name mentions "query" or "sql"; its SQL argument is
// "query" or "sql", and "limit" is passed only if the tool takes it.
func pickQueryTool(tools []listedTool) (queryTool, error) {
	pick := -1
	for i, t := range tools {
		if t.Name == domain.ToolReadQuery {
			pick = i
			break
		}
		if pick < 0 && (strings.Contains(t.Name, "query") || strings.Contains(t.Name, "sql")) {
			pick = i
		}
	}
	if pick < 0 {
		return queryTool{}, errors.New("offers no query tool")
	}
	t := tools[pick]
	q := queryTool{tool: t.Name, arg: "query"}
	if _, ok := t.InputSchema.Properties["query"]; !ok {
		if _, ok := t.InputSchema.Properties["sql"]; ok {
			q.arg = "sql"
		}
	}
	if _, ok := t.InputSchema.Properties["limit"]; ok {
		q.lim = "limit"
	}
	return q, nil
}

// pickTool reads tools/list and picks the query tool (pickQueryTool). This
// first tools/list is also what the start-up figure waits for.
func (s *mcpSession) pickTool(ctx context.Context) error {
	res, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	var tools []listedTool
	raw, err := json.Marshal(res.Tools)
	if err == nil {
		err = json.Unmarshal(raw, &tools)
	}
	if err != nil {
		return fmt.Errorf("reading the tools' input schemas: %w", err)
	}
	s.queryTool, err = pickQueryTool(tools)
	return err
}

func (s *mcpSession) query(ctx context.Context, sql string, limit, wantRows int) error {
	args := map[string]any{s.arg: sql}
	if s.lim != "" && limit > 0 {
		args[s.lim] = limit
	}
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: args})
	if err != nil {
		return err
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return fmt.Errorf("tool error: %.200s", text.String())
	}
	if !s.floor && wantRows > 0 && strings.Count(text.String(), "\n") < wantRows {
		return fmt.Errorf("answer holds fewer than %d rows: %.200s", wantRows, text.String())
	}
	return nil
}

func (s *mcpSession) close() { s.cs.Close() }

// sentinel ends each answer of the sqlite3 CLI: a dot command printed after
// every statement, so one persistent process answers many queries.
const sentinel = "--mcp-bench-end--"

// sqlite3Target is a persistent sqlite3 CLI process fed statements on
// stdin, printing CSV with a header, as the server does.
func sqlite3Target(bin string) target {
	return target{name: "sqlite3 CLI", start: func(ctx context.Context, db string) (session, error) {
		cmd := exec.Command(bin, "-batch", "-csv", "-header", db)
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		s := &cliSession{cmd: cmd, in: bufio.NewWriter(in), stdin: in, out: bufio.NewReaderSize(out, 1<<16)}
		// The start-up figure waits for a first answer.
		if err := s.query(ctx, "SELECT 1", 0, 1); err != nil {
			s.close()
			return nil, err
		}
		return s, nil
	}}
}

type cliSession struct {
	cmd   *exec.Cmd
	in    *bufio.Writer
	stdin io.Closer
	out   *bufio.Reader
}

func (s *cliSession) query(_ context.Context, sql string, _, wantRows int) error {
	fmt.Fprintf(s.in, "%s;\n.print %s\n", sql, sentinel)
	if err := s.in.Flush(); err != nil {
		return err
	}
	lines := 0
	for {
		line, err := s.out.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("sqlite3: %w", err)
		}
		if strings.TrimRight(string(line), "\r\n") == sentinel {
			break
		}
		if err == nil {
			lines++
		}
	}
	if lines < wantRows {
		return fmt.Errorf("sqlite3 answered %d lines, want %d rows", lines, wantRows)
	}
	return nil
}

func (s *cliSession) close() {
	s.stdin.Close()
	stopProcess(s.cmd, nil)
}

// stopProcess waits up to 5 s for cmd to exit after its stdin was closed,
// then kills it. drained, when set, is closed once stdout has been read to
// its end (Wait must not run before that).
func stopProcess(cmd *exec.Cmd, drained <-chan struct{}) {
	done := make(chan struct{})
	go func() {
		if drained != nil {
			<-drained
		}
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// peersEnv names the MCP peers to compare with, as
// "name=command args..." entries separated by ";", {db} standing for the
// database path, e.g. MCP_SQLITE_BENCH_PEERS='node-peer=npx -y some-mcp-sqlite {db}'.
const peersEnv = "MCP_SQLITE_BENCH_PEERS"

// baselineEnv names another build of this server (a binary path), measured
// alongside as baselineName: before/after figures from one interleaved run.
const baselineEnv = "MCP_SQLITE_BENCH_BASELINE"

// knownPeers are npm peers' command names looked for on PATH when the
// variable is unset; each is started as "<command> {db}".
var knownPeers = []string{"mcp-sqlite-server", "mcp-server-sqlite-npx"}

// peers returns the peer targets and a note for each that was looked for
// and not found.
func peers(env string, lookPath func(string) (string, error)) ([]target, []string) {
	var out []target
	var notes []string
	if strings.TrimSpace(env) != "" {
		for _, e := range strings.Split(env, ";") {
			name, cmdline, ok := strings.Cut(strings.TrimSpace(e), "=")
			argv := strings.Fields(cmdline)
			if !ok || name == "" || len(argv) == 0 {
				notes = append(notes, fmt.Sprintf("%s: entry %q is not name=command; skipped", peersEnv, e))
				continue
			}
			out = append(out, mcpTarget("peer "+name, false, argv...))
		}
		return out, notes
	}
	for _, p := range knownPeers {
		if bin, err := lookPath(p); err == nil {
			out = append(out, mcpTarget("peer "+p, false, bin, "{db}"))
		} else {
			notes = append(notes, fmt.Sprintf("npm peer %s not on PATH: skipped (set %s to name others)", p, peersEnv))
		}
	}
	return out, notes
}

// buildTargets builds this server and the do-nothing server into dir and
// returns every contender found: ours first, then the floor, sqlite3, peers.
func buildTargets(ctx context.Context, dir string) ([]target, []string, error) {
	ours, noop := filepath.Join(dir, "mcp-sqlite-memory"), filepath.Join(dir, "noop")
	for bin, pkg := range map[string]string{ours: "./cmd/mcp-sqlite-memory", noop: "./cmd/mcp-sqlite-memory-bench/noop"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
		cmd.Dir = moduleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	ts := []target{
		mcpTarget("mcp-sqlite-memory", false, ours, "--db", "{db}", "--max-result-bytes", "4194304"),
		mcpTarget("do-nothing SDK server", true, noop),
	}
	if bin := os.Getenv(baselineEnv); bin != "" {
		ts = append(ts, mcpTarget(baselineName, false, bin, "--db", "{db}", "--max-result-bytes", "4194304"))
	}
	var notes []string
	if bin, err := exec.LookPath("sqlite3"); err == nil {
		ts = append(ts, sqlite3Target(bin))
	} else {
		notes = append(notes, "sqlite3 not on PATH: its figures are skipped")
	}
	p, n := peers(os.Getenv(peersEnv), exec.LookPath)
	return append(ts, p...), append(notes, n...), nil
}

// moduleRoot is the folder of go.mod above the working directory.
func moduleRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}
