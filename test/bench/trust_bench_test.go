package bench_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/harness"
)

// trustNote is an ordinary note with nothing secret in it (what nearly
// every append is): ids, a hash, a URL, a path and prose.
const trustNote = "decision: keep the cache on WAL; commit 9fceb02d0ae598e95dc970b74767f19372d61af8 " +
	"fixed run 550e8400-e29b-41d4-a716-446655440000; see https://example.com/docs/wal and " +
	"/srv/app/config.yaml; the token ttl stays 3600 seconds and passwords are in the vault. " +
	"next: measure p99 under load with 8 writers and compare with last week's numbers."

// BenchmarkAppendTrust prices what an append_event pays for secret
// redaction and for signing the head with a chain key: three servers on
// their own files (plain: --redact-secrets=false and no key; redact: the
// default; signed: no redaction, a chain key), appending in turns in one
// loop so a busy machine slows all alike. It reports each one's time per
// append and x_redact and x_signed, the ratios to the plain append.
func BenchmarkAppendTrust(b *testing.B) {
	key, err := domain.NewChainKey(bytes.Repeat([]byte{42}, 32))
	require.NoError(b, err)
	plain := harness.New(b, harness.Config{KeepSecrets: true})
	redact := harness.New(b, harness.Config{})
	signed := harness.New(b, harness.Config{KeepSecrets: true, ChainKey: key})
	ctx := context.Background()
	add := func(env *harness.Env) time.Duration {
		start := time.Now()
		out, err := text(env.Tools.AppendEvent(ctx, domain.AppendEventRequest{Content: trustNote, Kind: "note"}))
		took := time.Since(start)
		if err != nil || strings.Contains(out, "redacted") {
			b.Fatalf("%v: %s", err, out)
		}
		return took
	}
	var p, r, s time.Duration
	for b.Loop() {
		p += add(plain)
		r += add(redact)
		s += add(signed)
	}
	b.ReportMetric(float64(p.Nanoseconds())/float64(b.N), "ns/plain")
	b.ReportMetric(float64(r.Nanoseconds())/float64(b.N), "ns/redact")
	b.ReportMetric(float64(s.Nanoseconds())/float64(b.N), "ns/signed")
	b.ReportMetric(float64(r)/float64(p), "x_redact")
	b.ReportMetric(float64(s)/float64(p), "x_signed")
}

// BenchmarkRedactSecrets prices the rule table alone on the note above
// and on 64 KiB of it (RE2: linear in the text).
func BenchmarkRedactSecrets(b *testing.B) {
	for _, c := range []struct {
		name string
		text string
	}{{"note", trustNote}, {"64KiB", strings.Repeat(trustNote+"\n", 65536/(len(trustNote)+1))}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				if _, rs := domain.RedactSecrets(c.text); len(rs) != 0 {
					b.Fatal(rs)
				}
			}
		})
	}
}
