package sqlite_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func ls(t *testing.T, dir string) {
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		fi, _ := e.Info()
		t.Logf("  %s %d %v %v", e.Name(), fi.Size(), fi.Mode(), fi.ModTime())
	}
}

func try(t *testing.T, dsn, q string) {
	db, err := sql.Open("sqlite", dsn)
	require.NoError(t, err)
	defer db.Close()
	var n any
	err = db.QueryRow(q).Scan(&n)
	t.Logf("dsn=%s q=%s -> %v err=%v", dsn, q, n, err)
}

func TestScratchRO(t *testing.T) {
	dir := os.Getenv("RODIR")
	if dir == "" {
		t.Skip()
	}
	for _, name := range []string{"wal.db", "del.db", "live.db"} {
		p := filepath.Join(dir, name)
		t.Log(name)
		for _, v := range []string{"?mode=ro&immutable=1", "?mode=ro"} {
			try(t, "file:"+p+v, "SELECT count(*) FROM t")
			ls(t, dir)
		}
	}
}
