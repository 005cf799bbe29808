//go:build race

package attack_test

// raceEnabled is true when the race detector is on: modernc.org/sqlite then
// runs about twenty times slower.
const raceEnabled = true
