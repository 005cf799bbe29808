package settings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckAuditPath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	db := filepath.Join(root, "data", "shop.db")
	require.NoError(t, os.MkdirAll(filepath.Dir(db), 0o755))
	require.NoError(t, os.WriteFile(db, []byte("x"), 0o644))
	require.NoError(t, os.Link(db, filepath.Join(root, "hard.db")))
	require.NoError(t, os.Symlink(filepath.Join(root, "data"), filepath.Join(root, "linked")))
	require.NoError(t, os.Mkdir(filepath.Join(root, "data", "deeper"), 0o755))

	snaps := []string{filepath.Join(root, "data", "shop.snapshots"), filepath.Join(root, "elsewhere")}
	for _, audit := range []string{
		filepath.Join(root, "linked", "shop.snapshots", "audit.db"),
		filepath.Join(root, "elsewhere", "deeper", "audit.db"),
		db,
		filepath.Join(root, "hard.db"),
		filepath.Join(root, "linked", "shop.db"),
		filepath.Join(root, "linked", "shop.db-wal"),
		filepath.Join(root, "linked", "shop.db-journal"),
		root + "/linked/deeper/../shop.db-shm",
		root + "/data/not-yet/../shop.db",
	} {
		_, err := CheckAuditPath(db, snaps, audit)
		var ue *UsageError
		assert.ErrorAs(t, err, &ue, audit)
	}
	for audit, want := range map[string]string{
		filepath.Join(root, "audit.db"):                    filepath.Join(root, "audit.db"),
		filepath.Join(root, "linked", "audit", "a.db"):     filepath.Join(root, "data", "audit", "a.db"),
		root + "/linked/deeper/../new/audit.db":            filepath.Join(root, "data", "new", "audit.db"),
		filepath.Join(root, "data", "shop.db.audit"):       filepath.Join(root, "data", "shop.db.audit"),
		filepath.Join(root, "linked", "deeper", "shop.db"): filepath.Join(root, "data", "deeper", "shop.db"),
	} {
		got, err := CheckAuditPath(db, snaps, audit)
		require.NoError(t, err, audit)
		assert.Equal(t, want, got, "opened where the system would create it")
	}
}
