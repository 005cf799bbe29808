package domain

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// snapshotStampLayout is the UTC second part of a snapshot stamp; the
// milliseconds and the `Z` follow it (`20260913T101112.345Z`).
const snapshotStampLayout = "20060102T150405"

// snapshotStampLen is the length of a whole stamp: 15 for the seconds, a dot,
// three digits of milliseconds and the `Z`.
const snapshotStampLen = len(snapshotStampLayout) + 5

// SnapshotStem returns the stem snapshot names start with: the database's
// file name without its last extension (`/x/memory.db` → `memory`,
// `memory.v2.sqlite` → `memory.v2`). A leading dot does not start an
// extension and a trailing dot ends none, as in Python's pathlib, so
// `.memory` and `memory.` are their own stems.
func SnapshotStem(dbPath string) string {
	name := filepath.Base(dbPath)
	if i := strings.LastIndexByte(name, '.'); i > 0 && i < len(name)-1 {
		return name[:i]
	}
	return name
}

// SnapshotName returns the file name of the snapshot of the database with
// the given stem taken at t:
// `<stem>.<YYYYmmddTHHMMSS>.<mmm>Z.db` in UTC, milliseconds truncated. A seq
// above 0 marks the seq-th extra snapshot taken in the same millisecond and
// adds `.<seq>` before `.db`; 0 and negative values add nothing.
func SnapshotName(stem string, t time.Time, seq int) string {
	t = t.UTC()
	name := fmt.Sprintf("%s.%s.%03dZ", stem, t.Format(snapshotStampLayout), t.Nanosecond()/int(time.Millisecond))
	if seq > 0 {
		name += "." + strconv.Itoa(seq)
	}
	return name + ".db"
}

// IsSnapshotOf reports whether fileName is a name [SnapshotName] produces for
// exactly this stem: the stamp must be a real UTC time in the canonical form
// and a sequence suffix, if any, a positive decimal without leading zeros.
// Snapshots of other databases sharing the folder never match, even when
// their stem starts with this one (`memory.x`, `memory-old`, `memory2`), and
// neither do unrelated files such as `memory.notes.db`.
func IsSnapshotOf(stem, fileName string) bool {
	_, _, ok := parseSnapshotName(stem, fileName)
	return ok
}

// SnapshotsToDelete returns the snapshots of the stem that retention removes
// so that only the newest keep remain, oldest first. Names that are not
// snapshots of this stem (see [IsSnapshotOf]) are ignored and never
// returned. A keep of 0 or less keeps nothing.
//
// Snapshots are ordered by their stamp and then by their sequence suffix, so
// `x.<stamp>.db` < `x.<stamp>.1.db` < `x.<stamp>.2.db` < `x.<stamp>.10.db`
// (a plain byte-wise sort of the names would put `.1.db` and `.10.db` before
// `.db` and `.10.db` before `.2.db`).
func SnapshotsToDelete(stem string, names []string, keep int) []string {
	type snap struct {
		name string
		at   time.Time
		seq  int
	}
	snaps := make([]snap, 0, len(names))
	for _, n := range names {
		if at, seq, ok := parseSnapshotName(stem, n); ok {
			snaps = append(snaps, snap{name: n, at: at, seq: seq})
		}
	}
	keep = max(keep, 0)
	if len(snaps) <= keep {
		return nil
	}
	slices.SortFunc(snaps, func(a, b snap) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	doomed := make([]string, 0, len(snaps)-keep)
	for _, s := range snaps[:len(snaps)-keep] {
		doomed = append(doomed, s.name)
	}
	return doomed
}

// parseSnapshotName splits a name made by [SnapshotName] for this stem into
// its time and sequence number; ok is false for any other name.
func parseSnapshotName(stem, fileName string) (at time.Time, seq int, ok bool) {
	rest, found := strings.CutPrefix(fileName, stem+".")
	if !found || stem == "" {
		return time.Time{}, 0, false
	}
	rest, found = strings.CutSuffix(rest, ".db")
	if !found || len(rest) < snapshotStampLen {
		return time.Time{}, 0, false
	}
	stamp, suffix := rest[:snapshotStampLen], rest[snapshotStampLen:]
	at, ok = parseSnapshotStamp(stamp)
	if !ok {
		return time.Time{}, 0, false
	}
	if suffix == "" {
		return at, 0, true
	}
	digits, found := strings.CutPrefix(suffix, ".")
	if !found || digits == "" || digits[0] == '0' || !allDigits(digits) {
		return time.Time{}, 0, false
	}
	seq, err := strconv.Atoi(digits)
	if err != nil {
		return time.Time{}, 0, false
	}
	return at, seq, true
}

// parseSnapshotStamp parses `YYYYmmddTHHMMSS.mmmZ`; it accepts only the
// exact text [SnapshotName] would write for the time it denotes.
func parseSnapshotStamp(stamp string) (time.Time, bool) {
	seconds, millis := stamp[:len(snapshotStampLayout)], stamp[len(snapshotStampLayout):]
	if millis[0] != '.' || millis[4] != 'Z' || !allDigits(millis[1:4]) || !allDigits(seconds[:8]) || !allDigits(seconds[9:]) {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(snapshotStampLayout, seconds, time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	ms, _ := strconv.Atoi(millis[1:4]) // three ASCII digits: cannot fail
	t = t.Add(time.Duration(ms) * time.Millisecond)
	if t.Format(snapshotStampLayout) != seconds {
		return time.Time{}, false
	}
	return t, true
}

// allDigits reports whether s is made of ASCII digits only.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
