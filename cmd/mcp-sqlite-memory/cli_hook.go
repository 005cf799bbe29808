package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The agent client hooks resume --hook answers (Claude Code's hooks: the
// hook's input is one JSON object on stdin, its answer JSON on stdout).
// SessionStart (sources startup, resume, clear and compact) adds
// hookSpecificOutput.additionalContext to the conversation, so it gets the
// resume context: a new session and a compacted one both start from the
// memory. PreCompact adds nothing to the conversation (only the common
// fields, such as systemMessage, shown to the user, are read), so it gets
// a one-line notice of what the memory holds; the context comes back
// through SessionStart once compaction is done.
const (
	hookSessionStart = "session-start"
	hookPreCompact   = "pre-compact"
	// hookInputMax bounds the hook input read from stdin.
	hookInputMax = 1 << 20
)

// hookInput is the part of the hook's input the answer uses.
type hookInput struct {
	HookEventName string `json:"hook_event_name"`
	Source        string `json:"source"`
	Trigger       string `json:"trigger"`
}

// sessionStartOutput is SessionStart's answer.
type sessionStartOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// preCompactOutput is PreCompact's answer.
type preCompactOutput struct {
	SystemMessage string `json:"systemMessage"`
}

// runHook answers a hook. Every failure exits with status 1, never 2: a
// hook's status 2 asks the client to block what it was about to do.
func runHook(ctx context.Context, cfg settings.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	err := answerHook(ctx, cfg, stdin, stdout, stderr)
	var ue *settings.UsageError
	if errors.As(err, &ue) {
		return errors.New(ue.Error())
	}
	return err
}

func answerHook(ctx context.Context, cfg settings.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	if cfg.CLI.Hook != hookSessionStart && cfg.CLI.Hook != hookPreCompact {
		return settings.Usagef("--hook takes %s or %s, got %s", hookSessionStart, hookPreCompact, domain.Quote(cfg.CLI.Hook))
	}
	if cfg.CLI.JSON {
		return settings.Usagef("--hook prints the hook's own JSON; leave out --json")
	}
	in, err := readHookInput(stdin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(cfg.DBPath); errors.Is(err, os.ErrNotExist) {
		// No memory yet: a hook must not fail the session for that.
		return printHook(cfg, stdout, "no memory yet: "+cfg.DBPath+" does not exist (the server creates it when it first starts)")
	}
	cmd, _ := commandOf([]string{cfg.Command})
	cfg, err = lookFirst(ctx, cmd, cfg, stderr)
	var nm *lookError
	if errors.As(err, &nm) {
		return printHook(cfg, stdout, "no memory yet: "+filepath.Base(cfg.DBPath)+" holds no memory (the server adds its tables when it first starts)")
	}
	if err != nil {
		return err
	}
	res, err := callTool(ctx, cfg, stderr, domain.ToolGetResumeContext, resumeArgs(cfg))
	if err != nil {
		return err
	}
	if !res.OK {
		return printResult(cfg, res, stdout, stderr)
	}
	text := res.Text
	if cfg.CLI.Hook == hookSessionStart && in.Source == "compact" {
		text = "The conversation was compacted. This is the memory on this database, to continue from:\n\n" + text
	}
	return printHook(cfg, stdout, text)
}

// readHookInput reads the hook's JSON input, if any: an empty stdin is
// fine (a person trying the command), anything else must be one object.
func readHookInput(stdin io.Reader) (hookInput, error) {
	var in hookInput
	if stdin == nil {
		return in, nil
	}
	b, err := io.ReadAll(io.LimitReader(stdin, hookInputMax+1))
	if err != nil {
		return in, fmt.Errorf("read the hook input on stdin: %w", err)
	}
	if len(b) > hookInputMax {
		return in, settings.Usagef("the hook input on stdin is over %d bytes", hookInputMax)
	}
	if strings.TrimSpace(string(b)) == "" {
		return in, nil
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return in, settings.Usagef("the hook input on stdin is not a JSON object (%v): --hook reads what the agent client sends", err)
	}
	return in, nil
}

// printHook writes the hook's answer carrying text.
func printHook(cfg settings.Config, stdout io.Writer, text string) error {
	var v any
	if cfg.CLI.Hook == hookSessionStart {
		var o sessionStartOutput
		o.HookSpecificOutput.HookEventName = "SessionStart"
		o.HookSpecificOutput.AdditionalContext = text
		v = o
	} else {
		v = preCompactOutput{SystemMessage: preCompactMessage(text)}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// preCompactMessage is the notice shown before compaction: the resume
// context's status line (how many events since which checkpoint, and the
// chain's state), not the whole text.
func preCompactMessage(resume string) string {
	status := ""
	for _, l := range strings.Split(resume, "\n") {
		if strings.HasPrefix(l, "# ") && strings.Contains(l, " events") && strings.Contains(l, "chain ") {
			status = strings.TrimPrefix(l, "# ")
			break
		}
		if strings.HasPrefix(l, "no memory yet") {
			return "mcp-sqlite-memory: " + l
		}
	}
	if status == "" {
		status = "memory read"
	}
	return "mcp-sqlite-memory: " + status + "; after compaction the SessionStart hook brings the resume context back"
}
