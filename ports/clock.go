package ports

import "time"

// Clock tells the time. Inject a fixed clock in tests where time shows in
// results (event timestamps, session ids, snapshot names).
type Clock interface {
	// Now returns the current time.
	Now() time.Time
}
