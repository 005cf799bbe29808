package litestream_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/litestream"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/test/slack"
)

// syncBuffer is a log destination safe for concurrent writes and reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// openDB creates a WAL database the way the server opens one when it
// replicates: busy timeout, no automatic checkpoints.
func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(wal)&_pragma=wal_autocheckpoint(0)")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = db.Exec("CREATE TABLE IF NOT EXISTS t (n INTEGER)")
	require.NoError(t, err)
	return db
}

// running is a replicator started in the background.
type running struct {
	log  *syncBuffer
	stop func()
}

func runReplicator(t *testing.T, dbPath, url string) *running {
	t.Helper()
	buf := &syncBuffer{}
	r, err := litestream.New(dbPath, litestream.Options{URL: url, SyncInterval: 50 * time.Millisecond, PollInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(buf, nil))})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); require.NoError(t, <-done) }) }
	t.Cleanup(stop)
	return &running{log: buf, stop: stop}
}

func count(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM t").Scan(&n))
	return n
}

func TestReplicateThenRestoreLatestAndPointInTime(t *testing.T) {
	dir := t.TempDir()
	dbPath, url := filepath.Join(dir, "m.db"), "file://"+filepath.ToSlash(filepath.Join(dir, "replica"))
	db := openDB(t, dbPath)
	rep := runReplicator(t, dbPath, url)
	require.Eventually(t, func() bool { return strings.Contains(rep.log.String(), "replicating with Litestream") }, slack.Of(5*time.Second), 10*time.Millisecond)

	for i := range 3 {
		_, err := db.Exec("INSERT INTO t VALUES (?)", i)
		require.NoError(t, err)
	}
	// The cut comes once the first rows are in the replica (an event: a
	// restore holds them, however long the sync took on a busy machine);
	// the time after it is not a wait for anything but a margin that puts
	// the later rows' sync well after the cut, and Restore's point in time
	// chooses by the time of a sync.
	for deadline := time.Now().Add(slack.Of(5 * time.Second)); ; time.Sleep(20 * time.Millisecond) {
		probe := filepath.Join(t.TempDir(), "probe.db")
		if litestream.Restore(context.Background(), url, probe, time.Time{}, nil) == nil && count(t, probe) == 3 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the first rows never reached the replica")
	}
	cut := time.Now()
	time.Sleep(600 * time.Millisecond)
	for i := range 4 {
		_, err := db.Exec("INSERT INTO t VALUES (?)", 10+i)
		require.NoError(t, err)
	}
	rep.stop() // the last sync runs on the way out
	assert.Contains(t, rep.log.String(), "replica up to date")

	latest := filepath.Join(t.TempDir(), "latest.db")
	require.NoError(t, litestream.Restore(context.Background(), url, latest, time.Time{}, nil))
	assert.Equal(t, 7, count(t, latest))
	atCut := filepath.Join(t.TempDir(), "cut.db")
	require.NoError(t, litestream.Restore(context.Background(), url, atCut, cut, nil))
	assert.Equal(t, 3, count(t, atCut))

	err := litestream.Restore(context.Background(), url, latest, time.Time{}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already exists")
	err = litestream.Restore(context.Background(), url, filepath.Join(t.TempDir(), "early.db"), cut.Add(-time.Hour), nil)
	assert.ErrorIs(t, err, litestream.ErrNoBackup)
	assert.Contains(t, err.Error(), "pick a later --at")
}

func TestRestoreFromAnEmptyReplica(t *testing.T) {
	url := "file://" + filepath.ToSlash(t.TempDir())
	err := litestream.Restore(context.Background(), url, filepath.Join(t.TempDir(), "x.db"), time.Time{}, nil)
	assert.ErrorIs(t, err, litestream.ErrNoBackup)
	assert.Contains(t, err.Error(), "--replicate")
}

// TestOneReplicatorPerDatabase: of two replicators on one file (as in two
// server processes), one replicates and the other says so; when the first
// stops, the second takes over. The flock is per open file, so two in one
// process exclude each other just as two processes do.
func TestOneReplicatorPerDatabase(t *testing.T) {
	dir := t.TempDir()
	dbPath, url := filepath.Join(dir, "m.db"), "file://"+filepath.ToSlash(filepath.Join(dir, "replica"))
	openDB(t, dbPath)
	first := runReplicator(t, dbPath, url)
	require.Eventually(t, func() bool { return strings.Contains(first.log.String(), "replicating with Litestream") }, slack.Of(5*time.Second), 10*time.Millisecond)
	second := runReplicator(t, dbPath, url)
	require.Eventually(t, func() bool { return strings.Contains(second.log.String(), "another process replicates") }, slack.Of(5*time.Second), 10*time.Millisecond)
	time.Sleep(200 * time.Millisecond) // four polls
	assert.NotContains(t, second.log.String(), "replicating with Litestream")

	first.stop()
	require.Eventually(t, func() bool { return strings.Contains(second.log.String(), "took_over=true") }, slack.Of(5*time.Second), 10*time.Millisecond)
	pid, err := os.ReadFile(dbPath + litestream.LockSuffix)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%d\n", os.Getpid()), string(pid), "the lock file names its holder")
}

func TestCheckURL(t *testing.T) {
	t.Setenv("AWS_CA_BUNDLE", "") // some machines set it; see the next test
	abs := filepath.ToSlash(t.TempDir())
	for _, ok := range []string{"file://" + abs, "file://localhost" + abs, "s3://bucket/path", "s3://bucket/path?endpoint=http://127.0.0.1:9000&region=x"} {
		assert.NoError(t, litestream.CheckURL(ok), ok)
	}
	for raw, want := range map[string]string{
		"":                  "not a URL",
		"/just/a/path":      "not a URL",
		"file://relative/x": "names host",
		"file:relative":     "absolute folder",
		"s3:///path":        "names no bucket",
		"gs://bucket/path":  "not supported",
		"gopher://h/x":      "not supported",
	} {
		err := litestream.CheckURL(raw)
		if assert.Error(t, err, raw) {
			assert.Contains(t, err.Error(), want, raw)
		}
	}
}

func TestCheckURLRefusesTheAWSCABundle(t *testing.T) {
	t.Setenv("AWS_CA_BUNDLE", "/etc/ssl/ca.pem")
	err := litestream.CheckURL("s3://bucket/path")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SSL_CERT_FILE")
	assert.NoError(t, litestream.CheckURL("file:///tmp/x"), "only S3 uses it")
}

func TestRedactDropsSecrets(t *testing.T) {
	got := litestream.Redact("s3://user:pass@bucket/p?sse-customer-key=SECRET&endpoint=http://h")
	assert.Equal(t, "s3://bucket/p", got)
	assert.NotContains(t, litestream.Redact("%zz"), "%zz")
}

// TestNewRefusesALockItCannotMake: the server stops at startup rather than
// run unreplicated when asked to replicate.
func TestNewRefusesALockItCannotMake(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "m.db")
	openDB(t, dbPath)
	require.NoError(t, os.Mkdir(dbPath+litestream.LockSuffix, 0o755))
	_, err := litestream.New(dbPath, litestream.Options{URL: "file://" + filepath.ToSlash(filepath.Join(dir, "replica"))})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "without --replicate")
}
