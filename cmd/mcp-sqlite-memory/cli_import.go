package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/mcp-sqlite-memory/settings"
	"io"
	"os"
	"path/filepath"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/sqlite/memory"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

var importCommand = &command{
	name:    "import",
	args:    "--to NEW.db [--from FILE]",
	summary: "Rebuilds a database from an export (stdin, or --from FILE), verified before it is written.",
	help: `  --to PATH                 the new database; refused when it (or its -wal, -shm or
                            -journal file) exists
  --from FILE               the export to read (default: stdin)
  --chain-key-file PATH     also check the head signatures with this key
  --json                    {"imported", "events", "checkpoints", "signatures",
                            "head_id", "head_hash"} instead of the summary line

Every line is checked before anything is committed: the format and version,
every event's hash by the reference's rule, every checkpoint against the chain
and its seal, every head signature against its event (and its MAC with
--chain-key-file), every provenance line against its event, and the
trailer's counts and head. Anything wrong leaves no file behind. Exporting
the new file gives the same bytes.
`,
	flags: func(fs *flag.FlagSet, o *cliOptions) {
		fs.StringVar(&o.From, "from", "", "")
		fs.StringVar(&o.To, "to", "", "")
	},
	run:  runImport,
	noDB: true,
}

// maxImportLine bounds one line of an export: an event's content is at
// most a tool call (--max-request-bytes), escaped.
const maxImportLine = 64 << 20

// runImport is the import subcommand.
func runImport(ctx context.Context, cfg Config, stdin io.Reader, stdout, _ io.Writer) error {
	if err := argCount(cfg, 0, 0); err != nil {
		return err
	}
	if cfg.CLI.To == "" {
		return usagef("import needs --to NEW.db (see %s import --help)", progName)
	}
	to, err := filepath.Abs(settings.ExpandHome(cfg.CLI.To, settings.HomeDir(os.Getenv)))
	if err != nil {
		return fmt.Errorf("resolve --to: %v", err)
	}
	for _, p := range []string{to, to + "-wal", to + "-shm", to + "-journal"} {
		if _, err := os.Lstat(p); err == nil {
			return usagef("import: %s exists; import only makes a new file (pick another --to, or remove it)", p)
		}
	}
	in := stdin
	if cfg.CLI.From != "" {
		f, err := os.Open(settings.ExpandHome(cfg.CLI.From, settings.HomeDir(os.Getenv)))
		if err != nil {
			return fmt.Errorf("import: %v", err)
		}
		defer f.Close()
		in = f
	}
	if err := limitHeap(cfg); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return fmt.Errorf("import: %v", err)
	}
	end, err := importInto(ctx, to, in, cfg.ChainKey)
	if err != nil {
		for _, p := range []string{to, to + "-wal", to + "-shm", to + "-journal"} {
			_ = os.Remove(p)
		}
		return fmt.Errorf("import: %w; nothing was written", err)
	}
	if cfg.CLI.JSON {
		return printJSON(stdout, map[string]any{"imported": to, "events": end.Events, "checkpoints": end.Checkpoints,
			"signatures": end.Signatures, "head_id": end.HeadID, "head_hash": end.HeadHash})
	}
	_, err = fmt.Fprintf(stdout, "imported %d events, %d checkpoints and %d head signatures into %s; head %d %s\n",
		end.Events, end.Checkpoints, end.Signatures, to, end.HeadID, end.HeadHash)
	return err
}

// importInto makes the database at to and fills it from in in one
// transaction, which commits only when everything verified.
func importInto(ctx context.Context, to string, in io.Reader, key *domain.ChainKey) (exportEnd, error) {
	store, err := sqlite.Open(ctx, to, sqlite.Options{}) // no key: an import never signs
	if err != nil {
		return exportEnd{}, err
	}
	defer store.Close()
	var end exportEnd
	err = memory.New(store).Import(ctx, func(rows *memory.Rows) error {
		var err error
		end, err = readExport(in, rows, key)
		return err
	})
	return end, err
}

// exportLine reads one line of an export.
type exportReader struct {
	r    *bufio.Reader
	line int
}

// next returns the next line's type and bytes; io.EOF at the end.
func (x *exportReader) next() (string, []byte, error) {
	var buf []byte
	for {
		chunk, err := x.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxImportLine {
			return "", nil, fmt.Errorf("line %d is longer than %d bytes", x.line+1, maxImportLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) == 0 {
			return "", nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return "", nil, err
		}
		break
	}
	x.line++
	var t struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(buf, &t); err != nil {
		return "", nil, fmt.Errorf("line %d is not a JSON object: %v", x.line, err)
	}
	return t.Type, buf, nil
}

// decode reads b into v strictly: unknown fields are an error.
func (x *exportReader) decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("line %d: %v", x.line, err)
	}
	return nil
}

// readExport checks and stores every line: the header, the checkpoints,
// the events (verified as they come), the signatures, the provenance,
// and the trailer.
func readExport(in io.Reader, rows *memory.Rows, key *domain.ChainKey) (exportEnd, error) {
	x := &exportReader{r: bufio.NewReaderSize(in, 64<<10)}
	typ, b, err := x.next()
	if errors.Is(err, io.EOF) {
		return exportEnd{}, errors.New("the input is empty: want an export (" + progName + " export --db FILE)")
	}
	if err != nil {
		return exportEnd{}, err
	}
	var h exportHeader
	if typ != "" || x.decode(b, &h) != nil || h.Format != exportFormat {
		return exportEnd{}, fmt.Errorf("line 1 is not the header of an %s export", progName)
	}
	if h.Version != exportVersion {
		return exportEnd{}, fmt.Errorf("export version %d: this %s reads version %d", h.Version, progName, exportVersion)
	}
	v := domain.NewChainVerifier()
	v.CheckCheckpoints()
	hashes := map[int64]string{}
	var count exportEnd
	var latest *domain.HeadSignature
	stage := lineCheckpoint // the lines come in this order: checkpoints, events, signatures, provenance, end
	order := map[string]int{lineCheckpoint: 0, lineEvent: 1, lineSignature: 2, lineProvenance: 3, lineEnd: 4}
	var lastProvenance int64
	for {
		typ, b, err := x.next()
		if errors.Is(err, io.EOF) {
			return exportEnd{}, fmt.Errorf("the export ends after line %d without its end line: it was cut", x.line)
		}
		if err != nil {
			return exportEnd{}, err
		}
		rank, ok := order[typ]
		if !ok {
			return exportEnd{}, fmt.Errorf("line %d has an unknown type %q", x.line, typ)
		}
		if rank < order[stage] {
			return exportEnd{}, fmt.Errorf("line %d: a %s after the %ss", x.line, typ, stage)
		}
		stage = typ
		switch typ {
		case lineCheckpoint:
			var c exportCheckpoint
			if err := x.decode(b, &c); err != nil {
				return exportEnd{}, err
			}
			cp := domain.Checkpoint{ID: c.ID, TS: c.TS, Session: c.Session, Summary: c.Summary, LastEventID: c.LastEventID, HeadHash: c.HeadHash}
			v.Checkpoint(cp)
			count.Checkpoints++
			if err := rows.Checkpoint(cp); err != nil {
				return exportEnd{}, fmt.Errorf("line %d: %v", x.line, err)
			}
		case lineEvent:
			var e exportEvent
			if err := x.decode(b, &e); err != nil {
				return exportEnd{}, err
			}
			ev := domain.Event{ID: e.ID, TS: e.TS, Session: e.Session, Kind: e.Kind, Content: e.Content, PrevHash: e.PrevHash, Hash: e.Hash}
			if !v.Add(ev) {
				r := v.Result(count.Events + 1)
				return exportEnd{}, fmt.Errorf("line %d: event %d breaks the chain: %s", x.line, r.BreakAt, r.Reason)
			}
			hashes[ev.ID] = ev.Hash
			count.Events++
			if err := rows.Event(ev); err != nil {
				return exportEnd{}, fmt.Errorf("line %d: %v", x.line, err)
			}
		case lineSignature:
			var s exportSignature
			if err := x.decode(b, &s); err != nil {
				return exportEnd{}, err
			}
			sig := domain.HeadSignature{EventID: s.EventID, HeadHash: s.HeadHash, KeyID: s.KeyID, MAC: s.MAC}
			if hashes[sig.EventID] != sig.HeadHash {
				return exportEnd{}, fmt.Errorf("line %d: the signature of event %d names a hash that event does not have", x.line, sig.EventID)
			}
			if latest != nil && sig.EventID <= latest.EventID {
				return exportEnd{}, fmt.Errorf("line %d: signatures must come in event order", x.line)
			}
			latest = &sig
			count.Signatures++
			if err := rows.Signature(sig); err != nil {
				return exportEnd{}, fmt.Errorf("line %d: %v", x.line, err)
			}
		case lineProvenance:
			var p exportProvenance
			if err := x.decode(b, &p); err != nil {
				return exportEnd{}, err
			}
			if _, ok := hashes[p.EventID]; !ok || p.EventID <= lastProvenance || p.Transport == "" {
				return exportEnd{}, fmt.Errorf("line %d: the provenance of event %d names no event of the export, comes out of event order or has no transport", x.line, p.EventID)
			}
			lastProvenance = p.EventID
			count.Provenances++
			if err := rows.Provenance(p.EventID, domain.Provenance{Transport: p.Transport, Client: p.Client,
				ClientVersion: p.ClientVersion, HTTPSession: p.HTTPSession, Command: p.Command}); err != nil {
				return exportEnd{}, fmt.Errorf("line %d: %v", x.line, err)
			}
		case lineEnd:
			var end exportEnd
			if err := x.decode(b, &end); err != nil {
				return exportEnd{}, err
			}
			r := v.Result(count.Events)
			if !r.OK {
				return exportEnd{}, fmt.Errorf("the chain does not verify: %s", r.JSON())
			}
			count.Type, count.HeadID, count.HeadHash = lineEnd, r.HeadID, r.HeadHash
			if end != count {
				return exportEnd{}, fmt.Errorf("the end line says %+v, the export holds %+v", end, count)
			}
			if key != nil {
				hash, found := hashes[0], false
				if latest != nil {
					hash, found = hashes[latest.EventID]
				}
				if r = domain.CheckHeadSignature(r, key, latest, hash, found); !r.OK {
					return exportEnd{}, fmt.Errorf("the head signatures do not verify with --chain-key-file: %s", r.Reason)
				}
			}
			if _, _, err := x.next(); !errors.Is(err, io.EOF) {
				return exportEnd{}, fmt.Errorf("line %d: more after the end line", x.line)
			}
			return count, nil
		}
	}
}
