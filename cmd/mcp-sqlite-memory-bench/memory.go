package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// memoryPeerEnv names the official memory server's command
// (@modelcontextprotocol/server-memory's mcp-server-memory), which
// scripts/bench-peers.sh installs into a temporary folder.
const memoryPeerEnv = "MCP_SQLITE_BENCH_MEMORY_PEER"

// memoryCall is one timed tool call: its p50 and its answer's size.
type memoryCall struct {
	p50   time.Duration
	bytes int
}

// memoryRows measures "remember one fact", "recall" and "search" on this
// server and on the official memory server, each preloaded with n items:
// our append_event, get_resume_context and search_memory, its
// add_observations, read_graph and search_nodes. It prints one markdown
// table to w. Answer sizes are in tokens approximated as bytes/4 (no
// tokenizer).
func memoryRows(ctx context.Context, dir string, sizes []int, calls int, w io.Writer, log io.Writer) error {
	ours := filepath.Join(dir, "mcp-sqlite-memory")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", ours, "./cmd/mcp-sqlite-memory")
	cmd.Dir = moduleRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	peer := os.Getenv(memoryPeerEnv)
	fmt.Fprintln(w, "| stored items | remember p50: ours / theirs (ratio, budget <= 0.5x) | recall p50: our get_resume_context / their read_graph (ratio, budget <= 0.5x) | answer tokens (bytes/4): ours / theirs | search p50: our search_memory / their search_nodes (ratio, budget <= 0.5x) | search answer tokens: ours / theirs |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	var firstResume time.Duration
	for _, n := range sizes {
		fmt.Fprintf(log, "memory rows: %d items ...\n", n)
		db := filepath.Join(dir, fmt.Sprintf("memory-%d.db", n))
		if err := preloadChain(ctx, db, n); err != nil {
			return err
		}
		o, err := mcpConnect(ctx, ours, "--db", db, "--max-result-bytes", "4194304")
		if err != nil {
			return err
		}
		// Ours are cheap: more calls, a steadier p50.
		resume, err := timeCalls(ctx, o, domain.ToolGetResumeContext, func(int) map[string]any { return map[string]any{} }, 5*calls)
		if err != nil {
			return err
		}
		remember, err := timeCalls(ctx, o, domain.ToolAppendEvent, func(i int) map[string]any {
			return map[string]any{"content": fmt.Sprintf("fact %d remembered by the benchmark", i)}
		}, 5*calls)
		if err != nil {
			o.Close()
			return err
		}
		// The same words the peer's search_nodes is given: one entity's
		// name, which our index splits into two words ("entity", n).
		found, err := timeCalls(ctx, o, domain.ToolSearchMemory, func(i int) map[string]any {
			return map[string]any{"query": fmt.Sprintf("entity-%d", i*7%n)}
		}, 5*calls)
		o.Close()
		if err != nil {
			return err
		}
		if firstResume == 0 {
			firstResume = resume.p50
		}
		theirs := "not run (set " + memoryPeerEnv + ")"
		recall, tokens := theirs, fmt.Sprintf("%d / -", resume.bytes/4)
		search, searchTokens := fmtDur(found.p50)+" / "+theirs, fmt.Sprintf("%d / -", found.bytes/4)
		rememberCell := fmt.Sprintf("%s / -", fmtDur(remember.p50))
		if peer != "" {
			file := filepath.Join(dir, fmt.Sprintf("memory-%d.jsonl", n))
			if err := preloadGraph(file, n); err != nil {
				return err
			}
			c := exec.Command(peer)
			c.Env = append(os.Environ(), "MEMORY_FILE_PATH="+file)
			p, err := mcpConnectCmd(ctx, c)
			if err != nil {
				return err
			}
			// A peer's failure (an answer larger than the SDK client
			// reads, say) is printed in its cell; ours end the run.
			nodes, serr := timeCalls(ctx, p, "search_nodes", func(i int) map[string]any { return map[string]any{"query": fmt.Sprintf("entity-%d", i*7%n)} }, calls)
			add, aerr := timeCalls(ctx, p, "add_observations", func(i int) map[string]any {
				return map[string]any{"observations": []any{map[string]any{"entityName": fmt.Sprintf("entity-%d", i%n), "contents": []any{fmt.Sprintf("fact %d remembered by the benchmark", i)}}}}
			}, calls)
			// Last: an answer the client cannot read closes the session.
			graph, gerr := timeCalls(ctx, p, "read_graph", func(int) map[string]any { return map[string]any{} }, calls)
			p.Close()
			rememberCell = fmt.Sprintf("%s / %s", fmtDur(remember.p50), peerCell(add, aerr, remember.p50))
			recall = fmt.Sprintf("%s / %s", fmtDur(resume.p50), peerCell(graph, gerr, resume.p50))
			tokens = fmt.Sprintf("%d / %d", resume.bytes/4, graph.bytes/4)
			if gerr != nil {
				tokens = fmt.Sprintf("%d / -", resume.bytes/4)
			}
			search = fmt.Sprintf("%s / %s", fmtDur(found.p50), peerCell(nodes, serr, found.p50))
			if serr == nil {
				searchTokens = fmt.Sprintf("%d / %d", found.bytes/4, nodes.bytes/4)
			}
		} else {
			recall = fmtDur(resume.p50) + " / " + theirs
		}
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s |\n", n, rememberCell, recall, tokens, search, searchTokens)
		if n != sizes[0] {
			fmt.Fprintf(w, "|  | | our resume at %d over at %d: %.2fx (budget <= 2x) | | | |\n", n, sizes[0], ratio(resume.p50, firstResume))
		}
	}
	return nil
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// peerCell is a peer's p50, with ours over it when ours is set, or its
// failure.
func peerCell(c memoryCall, err error, ours time.Duration) string {
	switch {
	case err != nil:
		return "failed (" + err.Error() + ")"
	case ours > 0:
		return fmt.Sprintf("%s (ours %.2fx)", fmtDur(c.p50), ratio(ours, c.p50))
	}
	return fmtDur(c.p50)
}

func fmtDur(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

func mcpConnect(ctx context.Context, argv ...string) (*mcp.ClientSession, error) {
	c := exec.Command(argv[0], argv[1:]...)
	return mcpConnectCmd(ctx, c)
}

func mcpConnectCmd(ctx context.Context, c *exec.Cmd) (*mcp.ClientSession, error) {
	c.Stderr = io.Discard
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-sqlite-memory-bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Path, err)
	}
	return cs, nil
}

// timeCalls makes calls calls of tool (after one untimed) and returns the
// p50 and the last answer's size in bytes.
func timeCalls(ctx context.Context, cs *mcp.ClientSession, tool string, args func(int) map[string]any, calls int) (memoryCall, error) {
	var took []time.Duration
	var size int
	for i := -1; i < calls; i++ {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args(i + 1)})
		d := time.Since(start)
		if err != nil {
			return memoryCall{}, fmt.Errorf("%s: %w", tool, err)
		}
		if res.IsError {
			return memoryCall{}, fmt.Errorf("%s failed: %v", tool, res.Content)
		}
		size = 0
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				size += len(t.Text)
			}
		}
		if i >= 0 {
			took = append(took, d)
		}
	}
	slices.Sort(took)
	return memoryCall{p50: took[len(took)/2], bytes: size}, nil
}

// preloadChain writes a bootstrapped database holding a valid chain of n
// events, in one transaction.
func preloadChain(ctx context.Context, path string, n int) error {
	store, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return err
	}
	if err := store.Close(); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=synchronous(off)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.Prepare("INSERT INTO memory_events (id, ts, session, kind, content, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer ins.Close()
	prev := domain.Event{ID: 0, Hash: domain.Genesis}
	for i := range n {
		e, err := domain.NewEvent(prev.ID, prev.Hash, "2026-12-02T00:00:00Z", "bench", "note", fmt.Sprintf("entity-%d: a fact stored by the benchmark, number %d", i, i))
		if err != nil {
			return err
		}
		if _, err := ins.Exec(e.ID, e.TS, e.Session, e.Kind, e.Content, e.PrevHash, e.Hash); err != nil {
			return err
		}
		prev = e
	}
	return tx.Commit()
}

// preloadGraph writes the official memory server's JSON-lines file with n
// entities of one observation each, the same facts as preloadChain's.
func preloadGraph(path string, n int) error {
	var b strings.Builder
	for i := range n {
		line, err := json.Marshal(map[string]any{"type": "entity", "name": fmt.Sprintf("entity-%d", i), "entityType": "note",
			"observations": []string{fmt.Sprintf("entity-%d: a fact stored by the benchmark, number %d", i, i)}})
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
