package domain_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

func TestSnapshotStem(t *testing.T) {
	tests := []struct {
		name   string
		dbPath string
		want   string
	}{
		{"db extension", "/data/memory.db", "memory"},
		{"sqlite extension", "/data/memory.sqlite", "memory"},
		{"only the last extension goes", "/data/memory.v2.sqlite", "memory.v2"},
		{"no extension", "/data/memory", "memory"},
		{"relative path", "memory.db", "memory"},
		{"leading dot is not an extension", "/data/.memory", ".memory"},
		{"hidden file with extension", "/data/.memory.db", ".memory"},
		{"trailing dot is no extension", "/data/memory.", "memory."},
		{"dot in a folder name", "/data.d/memory", "memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, domain.SnapshotStem(tt.dbPath))
		})
	}
}

func TestSnapshotName(t *testing.T) {
	at := time.Date(2026, 9, 13, 10, 11, 12, 345_678_901, time.UTC)
	tests := []struct {
		name string
		stem string
		at   time.Time
		seq  int
		want string
	}{
		{"reference example", "memory", at, 0, "memory.20260913T101112.345Z.db"},
		{"milliseconds are truncated, not rounded", "memory", at.Add(999 * time.Microsecond), 0, "memory.20260913T101112.346Z.db"},
		{"milliseconds are zero padded", "memory", time.Date(2026, 1, 2, 3, 4, 5, 7_000_000, time.UTC), 0, "memory.20260102T030405.007Z.db"},
		{"local time is written in UTC", "memory", at.In(time.FixedZone("CEST", 2*3600)), 0, "memory.20260913T101112.345Z.db"},
		{"first collision", "memory", at, 1, "memory.20260913T101112.345Z.1.db"},
		{"tenth collision", "memory", at, 10, "memory.20260913T101112.345Z.10.db"},
		{"negative sequence adds nothing", "memory", at, -1, "memory.20260913T101112.345Z.db"},
		{"dotted stem", "memory.v2", at, 0, "memory.v2.20260913T101112.345Z.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, domain.SnapshotName(tt.stem, tt.at, tt.seq))
		})
	}
}

func TestIsSnapshotOf(t *testing.T) {
	tests := []struct {
		name     string
		stem     string
		fileName string
		want     bool
	}{
		{"plain snapshot", "memory", "memory.20260913T101112.345Z.db", true},
		{"collision suffix", "memory", "memory.20260913T101112.345Z.1.db", true},
		{"large collision suffix", "memory", "memory.20260913T101112.345Z.123.db", true},
		{"dotted stem's own snapshot", "memory.x", "memory.x.20260913T101112.345Z.db", true},
		{"snapshot of a stem with a dot after ours", "memory", "memory.x.20260913T101112.345Z.db", false},
		{"snapshot of a longer stem", "memory", "memory2.20260913T101112.345Z.db", false},
		{"snapshot of a dashed stem", "memory", "memory-old.20260913T101112.345Z.db", false},
		{"snapshot of a shorter stem", "memory.x", "memory.20260913T101112.345Z.db", false},
		{"unrelated database", "memory", "memory.notes.db", false},
		{"the database itself", "memory", "memory.db", false},
		{"letter case differs", "memory", "Memory.20260913T101112.345Z.db", false},
		{"partial file", "memory", ".memory.20260913T101112.345Z.db.123.partial", false},
		{"partial suffix", "memory", "memory.20260913T101112.345Z.db.partial", false},
		{"journal beside a snapshot", "memory", "memory.20260913T101112.345Z.db-journal", false},
		{"wrong extension", "memory", "memory.20260913T101112.345Z.sqlite", false},
		{"no Z", "memory", "memory.20260913T101112.345.db", false},
		{"two digit millis", "memory", "memory.20260913T101112.34Z.db", false},
		{"four digit millis", "memory", "memory.20260913T101112.3456Z.db", false},
		{"month 13", "memory", "memory.20261313T101112.345Z.db", false},
		{"February 30", "memory", "memory.20260230T101112.345Z.db", false},
		{"hour 24", "memory", "memory.20260913T241112.345Z.db", false},
		{"lower case t", "memory", "memory.20260913t101112.345Z.db", false},
		{"sign in the stamp", "memory", "memory.+0260913T101112.345Z.db", false},
		{"sequence zero", "memory", "memory.20260913T101112.345Z.0.db", false},
		{"sequence with leading zero", "memory", "memory.20260913T101112.345Z.01.db", false},
		{"negative sequence", "memory", "memory.20260913T101112.345Z.-1.db", false},
		{"empty sequence", "memory", "memory.20260913T101112.345Z..db", false},
		{"sequence with a letter", "memory", "memory.20260913T101112.345Z.1a.db", false},
		{"sequence too large for int", "memory", "memory.20260913T101112.345Z.99999999999999999999.db", false},
		{"empty stem never matches", "", ".20260913T101112.345Z.db", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, domain.IsSnapshotOf(tt.stem, tt.fileName))
		})
	}
}

func TestIsSnapshotOfRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		at := time.Unix(rng.Int64N(4_102_444_800), rng.Int64N(int64(time.Second)))
		seq := rng.IntN(3) * rng.IntN(20)
		name := domain.SnapshotName("memory", at, seq)
		assert.True(t, domain.IsSnapshotOf("memory", name), name)
		assert.False(t, domain.IsSnapshotOf("memor", name), name)
		assert.False(t, domain.IsSnapshotOf("memory.", name), name)
	}
}

func TestSnapshotsToDelete(t *testing.T) {
	// Chronological order, oldest first. Byte-wise sorting would get the
	// same-millisecond run (.db, .1.db, .2.db, .10.db) wrong.
	chronological := []string{
		"memory.20251231T235959.999Z.db",
		"memory.20260913T101112.345Z.db",
		"memory.20260913T101112.345Z.1.db",
		"memory.20260913T101112.345Z.2.db",
		"memory.20260913T101112.345Z.10.db",
		"memory.20260913T101112.346Z.db",
		"memory.20270101T000000.000Z.db",
	}
	others := []string{
		"memory.db",
		"memory.notes.db",
		"memory.x.19990101T000000.000Z.db",
		"memory2.19990101T000000.000Z.db",
		"memory-old.19990101T000000.000Z.db",
		".memory.19990101T000000.000Z.db.1.partial",
	}
	tests := []struct {
		name  string
		names []string
		keep  int
		want  []string
	}{
		{"keep 2 of 7", chronological, 2, chronological[:5]},
		{"keep 5 of 7 drops the oldest two", chronological, 5, chronological[:2]},
		{"keep all", chronological, 7, nil},
		{"keep more than there are", chronological, 100, nil},
		{"keep 0 deletes every snapshot", chronological, 0, chronological},
		{"negative keep deletes every snapshot", chronological, -3, chronological},
		{"collision run is chronological", chronological[1:5], 1, chronological[1:4]},
		{"other files are never returned", append(slices.Clone(others), chronological...), 6, chronological[:1]},
		{"only other files", others, 0, nil},
		{"empty folder", nil, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shuffled := slices.Clone(tt.names)
			rand.New(rand.NewPCG(3, 4)).Shuffle(len(shuffled), func(i, j int) {
				shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
			})
			got := domain.SnapshotsToDelete("memory", shuffled, tt.keep)
			if len(tt.want) == 0 {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSnapshotsToDeleteDoesNotReorderInput(t *testing.T) {
	names := []string{"memory.20270101T000000.000Z.db", "memory.20260101T000000.000Z.db", "notes.txt"}
	before := slices.Clone(names)
	got := domain.SnapshotsToDelete("memory", names, 1)
	require.Equal(t, []string{"memory.20260101T000000.000Z.db"}, got)
	assert.Equal(t, before, names)
}
