package snapshot_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	// The modernc.org/sqlite driver ("sqlite") opens the databases and
	// snapshots the tests inspect.
	_ "modernc.org/sqlite"
)

// writerEnv makes the test binary run as a writer process (see TestMain).
const writerEnv = "SNAPSHOT_TEST_WRITER_DB"

// batch is how many rows each writer transaction inserts.
const batch = 10

func TestMain(m *testing.M) {
	if db := os.Getenv(writerEnv); db != "" {
		if err := runWriter(context.Background(), db, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fixedClock always tells the same time.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// steppingClock starts at t and moves on by one second at every reading.
type steppingClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.t
	c.t = c.t.Add(time.Second)
	return now
}

// dsn is a modernc.org/sqlite data source name for any path, busy timeout set.
func dsn(path string, pragmas ...string) string {
	q := "?_pragma=busy_timeout(5000)"
	for _, p := range pragmas {
		q += "&_pragma=" + p
	}
	return "file://" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + q
}

// openDB opens (creating if needed) a database and closes it after the test.
func openDB(t testing.TB, path string, pragmas ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, pragmas...))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// newDB creates a database at path in the given journal mode with a table
// t(n, pad) holding rows 1..rows and a table who(name) holding label.
func newDB(t testing.TB, path, journalMode, label string, rows int) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, "journal_mode("+journalMode+")"))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`CREATE TABLE t(n INTEGER PRIMARY KEY, pad BLOB);
		CREATE TABLE who(name TEXT);`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO who VALUES (?)`, label)
	require.NoError(t, err)
	_, err = db.Exec(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < ?)
		INSERT INTO t SELECT n, randomblob(1000) FROM c`, rows)
	require.NoError(t, err)
}

// snapshotFacts is what a test learns by opening a snapshot read-only.
type snapshotFacts struct {
	integrity string
	journal   string
	label     string
	rows      int64
	maxN      int64
}

// inspect opens a snapshot read-only and reads its facts.
func inspect(t testing.TB, path string) snapshotFacts {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path)+"&mode=ro")
	require.NoError(t, err)
	defer db.Close()
	var f snapshotFacts
	require.NoError(t, db.QueryRow(`PRAGMA integrity_check`).Scan(&f.integrity))
	require.NoError(t, db.QueryRow(`PRAGMA journal_mode`).Scan(&f.journal))
	require.NoError(t, db.QueryRow(`SELECT name FROM who`).Scan(&f.label))
	require.NoError(t, db.QueryRow(`SELECT count(*), coalesce(max(n), 0) FROM t`).Scan(&f.rows, &f.maxN))
	return f
}

// listDir returns the names in dir.
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// runWriter inserts batches of rows into table t, each batch in its own
// transaction with consecutive n, until stop ends (EOF) or ctx is done. It
// writes "ready" to ready after its first commit.
func runWriter(ctx context.Context, path string, stop io.Reader, ready io.Writer) error {
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	stopped := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, stop)
		close(stopped)
	}()
	const insert = `WITH RECURSIVE c(k) AS (SELECT 1 UNION ALL SELECT k+1 FROM c WHERE k < ?)
		INSERT INTO t SELECT (SELECT coalesce(max(n), 0) FROM t) + k, randomblob(1000) FROM c`
	for i := 0; ; i++ {
		select {
		case <-stopped:
			return nil
		case <-ctx.Done():
			return nil
		default:
		}
		if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, insert, batch); err != nil {
			_, _ = conn.ExecContext(ctx, `ROLLBACK`)
			return err
		}
		if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
			return err
		}
		if i == 0 {
			if _, err := fmt.Fprintln(ready, "ready"); err != nil {
				return err
			}
		}
	}
}

// startWriterProcess runs the test binary as a writer on path until the
// test ends, and returns once it has committed its first batch.
func startWriterProcess(t *testing.T, path string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), writerEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer process: %v", err)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
}

// startWriterGoroutine runs a writer on its own connection in this process
// until the test ends, and returns once it has committed its first batch.
func startWriterGoroutine(t *testing.T, path string) {
	t.Helper()
	stopR, stopW := io.Pipe()
	readyR, readyW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := runWriter(context.Background(), path, stopR, readyW)
		_ = readyW.Close()
		done <- err
	}()
	t.Cleanup(func() {
		_ = stopW.Close()
		if err := <-done; err != nil {
			t.Errorf("writer goroutine: %v", err)
		}
	})
	line, err := bufio.NewReader(readyR).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	go func() { _, _ = io.Copy(io.Discard, readyR) }()
}
