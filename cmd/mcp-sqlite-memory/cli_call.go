package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	wiring "github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/wire"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// toolResult is one tool call's outcome as the CLI prints it with --json:
//
//	{"tool": "read_query", "ok": true, "text": "..."}
type toolResult struct {
	Tool string `json:"tool"`
	OK   bool   `json:"ok"`
	Text string `json:"text"`
}

// callTool runs one tool exactly as an MCP client would see it: an
// in-process client speaks to the server's own Serve over a pipe, so the
// arguments pass the same schema checks and request-size guard, the tool
// set is the same (read-only mode offers only the read tools), and the core
// audits the call under this process's session id. args is a JSON object.
func callTool(ctx context.Context, cfg settings.Config, stderr io.Writer, name string, args json.RawMessage) (toolResult, error) {
	w, err := wire(ctx, cfg, cliLogger(cfg, stderr), stderr, newSession(systemClock{}.Now()))
	if err != nil {
		return toolResult{}, err
	}
	defer w.Close()
	// What the call appends records that the command line wrote it
	// (docs/decisions.md#provenance), not the in-process client.
	ctx = ports.WithProvenance(ctx, domain.Provenance{Transport: domain.TransportCLI, Command: "call " + name})
	res, err := callOver(ctx, cfg, w, name, args)
	if err != nil {
		return toolResult{}, err
	}
	return res, nil
}

// callOver connects a client to w's server through two pipes and makes
// one call; the server ends when the client closes its side.
func callOver(ctx context.Context, cfg settings.Config, w *wiring.Wiring, name string, args json.RawMessage) (toolResult, error) {
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() {
		err := w.Server.Serve(ctx, inR, outW)
		_ = outW.Close()
		served <- err
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: settings.ProgName + "-cli", Version: buildVersion()}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		return toolResult{}, fmt.Errorf("start the in-process server: %w", err)
	}
	known := false
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			_ = cs.Close()
			return toolResult{}, err
		}
		known = known || tool.Name == name
	}
	if !known {
		_ = cs.Close()
		return toolResult{}, settings.Usagef("no tool %q here: run %s call --db PATH without a tool to list the tools this database offers%s", name, settings.ProgName, readOnlyNote(cfg))
	}
	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	_ = cs.Close()
	_ = inW.Close()
	select {
	case <-served:
	case <-time.After(5 * time.Second):
	}
	if err != nil {
		return toolResult{}, err
	}
	var text []string
	for _, c := range out.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	return toolResult{Tool: name, OK: !out.IsError, Text: strings.Join(text, "\n")}, nil
}

func readOnlyNote(cfg settings.Config) string {
	if cfg.ReadOnly {
		return " (--read-only offers only the read tools)"
	}
	return ""
}

// printResult prints a tool's result: its text on stdout, or the error
// text on stderr; with --json the document on stdout. A tool error ends
// with status 1.
func printResult(cfg settings.Config, res toolResult, stdout, stderr io.Writer) error {
	if cfg.CLI.JSON {
		if err := printJSON(stdout, res); err != nil {
			return err
		}
	} else {
		w := stdout
		if !res.OK {
			w = stderr
		}
		text := res.Text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if _, err := io.WriteString(w, text); err != nil {
			return err
		}
	}
	if !res.OK {
		return exitStatus(1)
	}
	return nil
}

var callCommand = &command{
	name:    "call",
	args:    "TOOL ['{\"arg\": value}' | -]",
	summary: "Runs one tool through the same core and policy as the server, for scripts.",
	help: `The arguments are one JSON object (default {}), or - to read it from stdin. The
call is checked, run and audited in query_log exactly like an agent's, under
this process's own session id. The tool's text goes to stdout; a tool error's
text goes to stderr and the exit status is 1. Without TOOL the tools are listed.

  --json                    {"tool": NAME, "ok": BOOL, "text": TEXT} on stdout

Example: ` + settings.ProgName + ` call --db memory.db read_query '{"query": "SELECT 1"}'

`,
	flags: func(*flag.FlagSet, *settings.CLIOptions) {},
	run:   runCall,
	use:   callUse,
}

func runCall(ctx context.Context, cfg settings.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := argCount(cfg, 0, 2); err != nil {
		return err
	}
	if err := needExisting(cfg); err != nil {
		return err
	}
	if len(cfg.Args) == 0 {
		return listTools(ctx, cfg, stdout, stderr)
	}
	raw := "{}"
	if len(cfg.Args) == 2 {
		raw = cfg.Args[1]
	}
	if raw == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, int64(cfg.Limits.MaxRequestBytes)+1))
		if err != nil {
			return fmt.Errorf("read the arguments from stdin: %w", err)
		}
		raw = string(b)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &obj); err != nil || obj == nil {
		return settings.Usagef("the arguments of %s must be one JSON object such as '{\"query\": \"SELECT 1\"}': %v", cfg.Args[0], jsonReason(err))
	}
	res, err := callTool(ctx, cfg, stderr, cfg.Args[0], json.RawMessage(raw))
	if err != nil {
		return err
	}
	return printResult(cfg, res, stdout, stderr)
}

func jsonReason(err error) string {
	if err == nil {
		return "got null"
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	}
	return err.Error()
}

// listTools prints the tools the database offers, one per line.
func listTools(ctx context.Context, cfg settings.Config, stdout, stderr io.Writer) error {
	w, err := wire(ctx, cfg, cliLogger(cfg, stderr), stderr, newSession(systemClock{}.Now()))
	if err != nil {
		return err
	}
	defer w.Close()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: settings.ProgName + "-cli", Version: buildVersion()}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := w.Server.Connect(cctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Close()
	cs, err := client.Connect(cctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	type tool struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	var tools []tool
	for t, err := range cs.Tools(cctx, nil) {
		if err != nil {
			return err
		}
		first, _, _ := strings.Cut(t.Description, ". ")
		first, _, _ = strings.Cut(first, "\n")
		tools = append(tools, tool{t.Name, first})
	}
	if cfg.CLI.JSON {
		return printJSON(stdout, map[string]any{"tools": tools})
	}
	for _, t := range tools {
		if _, err := fmt.Fprintf(stdout, "%-20s %s\n", t.Name, t.Description); err != nil {
			return err
		}
	}
	return nil
}
