package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/memory"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The export format (docs/export.md): JSON lines, a header, then the
// checkpoints, the events, the head signatures and the events'
// provenance in id order, then a trailer that counts them and names the
// head, so a cut file is refused.
const (
	exportFormat  = "mcp-sqlite-memory-export"
	exportVersion = 1
)

// The "type" of each line after the header. "checkpoint" names the
// memory_checkpoints row here, not the tool.
const (
	lineCheckpoint = "checkpoint"
	lineEvent      = "event"
	lineSignature  = "signature"
	lineProvenance = "provenance"
	lineEnd        = "end"
)

// exportHeader is the first line.
type exportHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// exportCheckpoint is one memory_checkpoints row.
type exportCheckpoint struct {
	Type        string `json:"type"`
	ID          int64  `json:"id"`
	TS          string `json:"ts"`
	Session     string `json:"session"`
	Summary     string `json:"summary"`
	LastEventID int64  `json:"last_event_id"`
	HeadHash    string `json:"head_hash"`
}

// exportEvent is one memory_events row (seals and markers included).
type exportEvent struct {
	Type     string `json:"type"`
	ID       int64  `json:"id"`
	TS       string `json:"ts"`
	Session  string `json:"session"`
	Kind     string `json:"kind"`
	Content  string `json:"content"`
	PrevHash string `json:"prev_hash"`
	Hash     string `json:"hash"`
}

// exportSignature is one memory_head_signatures row.
type exportSignature struct {
	Type     string `json:"type"`
	EventID  int64  `json:"event_id"`
	HeadHash string `json:"head_hash"`
	KeyID    string `json:"key_id"`
	MAC      string `json:"mac"`
}

// exportProvenance is one memory_provenance row (docs/decisions.md#provenance),
// its empty fields "".
type exportProvenance struct {
	Type          string `json:"type"`
	EventID       int64  `json:"event_id"`
	Transport     string `json:"transport"`
	Client        string `json:"client"`
	ClientVersion string `json:"client_version"`
	HTTPSession   string `json:"http_session"`
	Command       string `json:"command"`
}

// exportEnd is the last line. Provenances is left out when there are
// none, so a file without provenance exports as it always did.
type exportEnd struct {
	Type        string `json:"type"`
	Checkpoints int64  `json:"checkpoints"`
	Events      int64  `json:"events"`
	Signatures  int64  `json:"signatures"`
	Provenances int64  `json:"provenances,omitempty"`
	HeadID      int64  `json:"head_id"`
	HeadHash    string `json:"head_hash"`
}

var exportCommand = &command{
	name:    "export",
	summary: "Writes the memory (checkpoints, events with their seals, head signatures, provenance) to stdout as JSON lines.",
	help: `The file opens read-only: export changes nothing, and works while a server runs.
The chain is verified first; a broken chain is refused (exit 1), so what is
exported is what import accepts. The format, with its version, is described in
docs/export.md. --json changes nothing: the output is JSON already.
`,
	run: runExport,
	use: func(Config) dbUse { return dbUse{needs: memoryTables} },
}

// runExport is the export subcommand.
func runExport(ctx context.Context, cfg Config, _ io.Reader, stdout, stderr io.Writer) error {
	if err := argCount(cfg, 0, 0); err != nil {
		return err
	}
	if err := limitHeap(cfg); err != nil {
		return err
	}
	store, err := sqlite.Open(ctx, cfg.DBPath, sqlite.Options{ReadOnly: true, QueryTimeout: cfg.Limits.QueryTimeout})
	if err != nil {
		return err
	}
	defer store.Close()
	return exportMemory(ctx, memory.New(store), stdout)
}

// exportMemory verifies the chain while it writes it, in one read
// transaction, then the signatures up to the head it wrote.
func exportMemory(ctx context.Context, m *memory.Store, stdout io.Writer) error {
	out := bufio.NewWriterSize(stdout, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	var werr error
	put := func(v any) {
		if werr == nil {
			werr = enc.Encode(v)
		}
	}
	put(exportHeader{Format: exportFormat, Version: exportVersion})
	v := domain.NewChainVerifier()
	v.CheckCheckpoints()
	var end exportEnd
	n, err := m.Events(ctx, func(c domain.Checkpoint) {
		v.Checkpoint(c)
		end.Checkpoints++
		put(exportCheckpoint{Type: lineCheckpoint, ID: c.ID, TS: c.TS, Session: c.Session, Summary: c.Summary, LastEventID: c.LastEventID, HeadHash: c.HeadHash})
	}, func(e domain.Event) bool {
		put(exportEvent{Type: lineEvent, ID: e.ID, TS: e.TS, Session: e.Session, Kind: e.Kind, Content: e.Content, PrevHash: e.PrevHash, Hash: e.Hash})
		return v.Add(e)
	})
	if err != nil {
		return fmt.Errorf("read the memory: %w", err)
	}
	r := v.Result(n)
	if !r.OK {
		return fmt.Errorf("the chain does not verify, so it is not exported: %s (see %s verify)", r.JSON(), progName)
	}
	err = m.Signatures(ctx, r.HeadID, func(s domain.HeadSignature) error {
		end.Signatures++
		put(exportSignature{Type: lineSignature, EventID: s.EventID, HeadHash: s.HeadHash, KeyID: s.KeyID, MAC: s.MAC})
		return werr
	})
	if err != nil {
		return fmt.Errorf("read the head signatures: %w", err)
	}
	err = m.Provenances(ctx, r.HeadID, func(id int64, p domain.Provenance) error {
		end.Provenances++
		put(exportProvenance{Type: lineProvenance, EventID: id, Transport: p.Transport, Client: p.Client,
			ClientVersion: p.ClientVersion, HTTPSession: p.HTTPSession, Command: p.Command})
		return werr
	})
	if err != nil {
		return fmt.Errorf("read the events' provenance: %w", err)
	}
	end.Type, end.Events, end.HeadID, end.HeadHash = lineEnd, n, r.HeadID, r.HeadHash
	put(end)
	if werr != nil {
		return werr
	}
	return out.Flush()
}
