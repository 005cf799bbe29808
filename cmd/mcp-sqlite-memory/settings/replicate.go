package settings

import (
	"flag"
	"os"
	"strings"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// Replication settings (README "Sharing and surviving"). The sync interval
// falls back to Litestream's own LITESTREAM_SYNC_INTERVAL, then to
// Litestream's default of 1 s.
const (
	EnvReplicate         = "MCP_SQLITE_REPLICATE"
	envReplicateSync     = "MCP_SQLITE_REPLICATE_SYNC_INTERVAL"
	envLitestreamSync    = "LITESTREAM_SYNC_INTERVAL"
	minReplicateInterval = 10 * time.Millisecond
	// defaultReplicateSync is Litestream's own default time between syncs.
	defaultReplicateSync = time.Second
	// EnvReplicator names the replication sidecar's executable explicitly.
	EnvReplicator = "MCP_SQLITE_REPLICATOR"
	// SidecarName is the sidecar's executable name (plus .exe on Windows).
	SidecarName = "mcp-sqlite-memory-replicate"
)

// replicateSettings holds the replication flags until they are checked.
type replicateSettings struct {
	url, sync  string
	syncSource string // variable the interval came from; "" for the flag
}

// addReplicateFlags registers --replicate and --replicate-sync-interval with
// their variables as defaults.
func addReplicateFlags(fs *flag.FlagSet, r *replicateSettings, getenv func(string) string) {
	r.url = getenv(EnvReplicate)
	fs.Func("replicate", "", func(v string) error { r.url = v; return nil })
	for _, src := range []string{envLitestreamSync, envReplicateSync} { // the more specific wins
		if v := getenv(src); v != "" {
			r.sync, r.syncSource = v, src
		}
	}
	fs.Func("replicate-sync-interval", "", func(v string) error { r.sync, r.syncSource = v, ""; return nil })
}

// apply checks the replication settings into cfg, naming each setting as
// the user gave it. Replication needs a writable database: --read-only
// writes nothing, so the pair is refused.
func (r *replicateSettings) apply(cfg *Config, names *flagNames) error {
	// A malformed interval is refused even without --replicate (it is then
	// also warned about as ignored, warnings.go): a typo never waits for
	// the day replication is switched on.
	sync := defaultReplicateSync
	if strings.TrimSpace(r.url) == "" && r.syncSource == envLitestreamSync {
		return nil // Litestream's own variable is its business until we replicate
	}
	if r.sync != "" {
		d, err := time.ParseDuration(strings.TrimSpace(r.sync))
		if err != nil || d < minReplicateInterval {
			source := r.syncSource
			if source == "" {
				source = names.of("replicate-sync-interval")
			}
			return Usagef("invalid value %q for %s: want a duration of at least %s, such as 1s or 500ms", r.sync, source, minReplicateInterval)
		}
		sync = d
	}
	if strings.TrimSpace(r.url) == "" {
		return nil
	}
	from := names.of("replicate")
	if cfg.Command != "" {
		// A subcommand never replicates; one that writes still leaves the
		// checkpoints to Litestream (wire's NoAutoCheckpoint).
		cfg.Replicate = r.url
		return nil
	}
	if cfg.ReadOnly {
		return Usagef("%s cannot be combined with --read-only: a read-only server writes nothing, so it has nothing to replicate; "+
			"replicate from the server that writes this database", from)
	}
	// What needs no Litestream code is checked here, so a bad URL stops
	// the server at once; the sidecar checks the rest when it starts.
	if err := domain.CheckReplicaURL(r.url, os.Getenv); err != nil {
		return Usagef("invalid %s: %v", from, err)
	}
	cfg.Replicate, cfg.ReplicateSync, cfg.ReplicateFrom = r.url, sync, from
	return nil
}

// replicateUsage is the --help text of the replication settings.
func replicateUsage() string {
	return `
Replication with Litestream (README "Sharing and surviving"):

  --replicate URL           stream the database to a Litestream replica:
                            file:///folder or s3://bucket/path (credentials,
                            endpoint and region as Litestream reads them:
                            AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
                            LITESTREAM_S3_ENDPOINT, ?endpoint=, ?region=).
                            Of several servers on one file, one replicates.
                            ` + EnvReplicate + `
  --replicate-sync-interval DURATION  time between syncs (default 1s)
                            ` + envReplicateSync + ` or ` + envLitestreamSync + `
                            Litestream runs in the helper ` + SidecarName + `,
                            found beside this executable, then on PATH, or
                            named in ` + EnvReplicator + `

  ` + ProgName + ` restore --from URL --to PATH [--at TIME]
                            restore a replica into a new file, verified (see
                            ` + ProgName + ` restore --help)
`
}
