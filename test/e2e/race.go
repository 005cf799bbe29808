package e2e

import (
	"os"
	"strings"
	"testing"
)

// RaceEnv names the variable that makes [Build] compile the server with
// the race detector (E2E_RACE=1), so the binary's own goroutines are
// checked, not only the tests'. .ci/run sets it for one run of the
// end-to-end tests that exercise concurrency; the memory and timing bounds
// are measured on the ordinary binary, which the race detector would
// slow down and grow several times over.
const RaceEnv = "E2E_RACE"

// RaceBuilt reports whether this test process builds the race binary.
func RaceBuilt() bool { return os.Getenv(RaceEnv) == "1" }

// raceBuildFlags are the extra go build flags for the server binary.
func raceBuildFlags() []string {
	if RaceBuilt() {
		return []string{"-race"}
	}
	return nil
}

// raceChildEnv makes a race-built server stop at its first data race, so
// the test talking to it fails there rather than at exit.
func raceChildEnv() []string {
	if RaceBuilt() {
		return []string{"GORACE=halt_on_error=1"}
	}
	return nil
}

// checkNoRace fails t when the server's stderr reports a data race.
func checkNoRace(t testing.TB, stderr string) {
	if RaceBuilt() && strings.Contains(stderr, "WARNING: DATA RACE") {
		t.Errorf("the server reported a data race:\n%s", stderr)
	}
}
