package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

var verifyCommand = &command{
	name:    "verify",
	summary: "Recomputes every hash of the memory chain and reports the first break.",
	help: `Exit status 1 when the chain is broken (or cannot be checked), 0 when it is intact.
The check is verify_chain's, audited like a tool call.

  --json                    verify_chain's own object:
                            {"ok": true, "events": N, "head_id": ID, "head_hash": HASH}
                            plus "checkpoints" and "sealed" when there are
                            checkpoints, "checkpoint_id" when one of them
                            breaks it, "break_at_id" and "reason" when broken
`,
	run: runVerify,
	use: func(settings.Config) dbUse { return dbUse{needs: memoryTables} },
}

// verifyJSON is verify_chain's result object.
type verifyJSON struct {
	OK       bool   `json:"ok"`
	Events   int64  `json:"events"`
	HeadID   int64  `json:"head_id"`
	HeadHash string `json:"head_hash"`
	BreakAt  int64  `json:"break_at_id"`
	Reason   string `json:"reason"`
	// Checkpoints, Sealed and CheckpointID: how many checkpoints were
	// checked, how many the chain covers, the one that broke it.
	Checkpoints  int64 `json:"checkpoints"`
	Sealed       int64 `json:"sealed"`
	CheckpointID int64 `json:"checkpoint_id"`
	// Signature, Key and SignedID: what the head's signature proves
	// (--chain-key-file), "" when nothing is signed.
	Signature string `json:"signature"`
	Key       string `json:"key"`
	SignedID  int64  `json:"signed_id"`
}

func runVerify(ctx context.Context, cfg settings.Config, _ io.Reader, stdout, stderr io.Writer) error {
	if err := argCount(cfg, 0, 0); err != nil {
		return err
	}
	if err := needExisting(cfg); err != nil {
		return err
	}
	res, err := callTool(ctx, cfg, stderr, domain.ToolVerifyChain, json.RawMessage(`{}`))
	if err != nil {
		return err
	}
	if !res.OK {
		return printResult(cfg, res, stdout, stderr)
	}
	var v verifyJSON
	if err := json.Unmarshal([]byte(res.Text), &v); err != nil {
		return fmt.Errorf("verify_chain answered something unexpected (%v): %s", err, res.Text)
	}
	if cfg.CLI.JSON {
		_, err = fmt.Fprintln(stdout, res.Text)
	} else if v.OK {
		_, err = fmt.Fprintf(stdout, "chain ok: %d events, head #%d %s%s%s\n", v.Events, v.HeadID, v.HeadHash, checkpointsNote(v), signatureNote(v))
	} else if v.BreakAt == 0 {
		_, err = fmt.Fprintf(stdout, "chain BROKEN: %s\n%d events, head #%d %s%s\n",
			v.Reason, v.Events, v.HeadID, v.HeadHash, checkpointsNote(v))
	} else {
		_, err = fmt.Fprintf(stdout, "chain BROKEN at event #%d: %s\n%d events; the last good one is #%d %s\n",
			v.BreakAt, v.Reason, v.Events, v.HeadID, v.HeadHash)
	}
	if err != nil {
		return err
	}
	if !v.OK {
		return exitStatus(1)
	}
	return nil
}

// signatureNote says what the head's signature proves, when there is one.
func signatureNote(v verifyJSON) string {
	switch v.Signature {
	case domain.SignatureVerified:
		return fmt.Sprintf("; head signed (event #%d) by key %s, verified", v.SignedID, v.Key)
	case domain.SignatureUnchecked:
		return fmt.Sprintf("; head signed (event #%d) by key %s, not checked (pass --chain-key-file to check it)", v.SignedID, v.Key)
	case domain.SignatureEmpty:
		return "; nothing to sign yet (key " + v.Key + ")"
	}
	return ""
}

// checkpointsNote says how many checkpoints the chain covers.
func checkpointsNote(v verifyJSON) string {
	if v.Checkpoints == 0 {
		return ""
	}
	note := fmt.Sprintf("; %d checkpoints, %d sealed", v.Checkpoints, v.Sealed)
	if n := v.Checkpoints - v.Sealed; n > 0 && v.OK {
		note += fmt.Sprintf(" (%d written by the reference implementation or an older server: no hash covers their summaries)", n)
	}
	return note
}

var resumeCommand = &command{
	name:    "resume",
	summary: "Prints what an agent gets from get_resume_context: the latest checkpoint and the events since.",
	help: `The call is get_resume_context's, audited like a tool call.

  --max-events N            most events to show (default: the tool's)
  --max-bytes N             byte budget: the checkpoint and the newest events are kept
                            (default: the tool's)
  --exclude-kinds K1,K2     event kinds to leave out
  --json                    {"tool": "get_resume_context", "ok": BOOL, "text": TEXT}
  --hook EVENT              print what a Claude Code hook expects, reading the hook's
                            JSON input on stdin: session-start (the resume context as
                            hookSpecificOutput.additionalContext) or pre-compact (a
                            systemMessage; PreCompact adds nothing to the context)
`,
	flags: func(fs *flag.FlagSet, o *settings.CLIOptions) {
		fs.IntVar(&o.MaxEvents, "max-events", 0, "")
		fs.IntVar(&o.MaxBytes, "max-bytes", 0, "")
		fs.StringVar(&o.ExcludeKinds, "exclude-kinds", "", "")
		fs.StringVar(&o.Hook, "hook", "", "")
	},
	run: runResume,
	use: func(settings.Config) dbUse { return dbUse{needs: memoryTables} },
}

func runResume(ctx context.Context, cfg settings.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := argCount(cfg, 0, 0); err != nil {
		return err
	}
	if cfg.CLI.Hook != "" {
		return runHook(ctx, cfg, stdin, stdout, stderr) // cli_hook.go
	}
	if err := needExisting(cfg); err != nil {
		return err
	}
	res, err := callTool(ctx, cfg, stderr, domain.ToolGetResumeContext, resumeArgs(cfg))
	if err != nil {
		return err
	}
	return printResult(cfg, res, stdout, stderr)
}

// resumeArgs are get_resume_context's arguments from the flags.
func resumeArgs(cfg settings.Config) json.RawMessage {
	args := map[string]any{}
	if cfg.CLI.MaxBytes != 0 {
		args["max_bytes"] = cfg.CLI.MaxBytes
	}
	if cfg.CLI.MaxEvents != 0 {
		args["max_events"] = cfg.CLI.MaxEvents
	}
	if cfg.CLI.ExcludeKinds != "" {
		args["exclude_kinds"] = cfg.CLI.ExcludeKinds
	}
	raw, _ := json.Marshal(args) // ints and strings: cannot fail
	return raw
}
