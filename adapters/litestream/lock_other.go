//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package litestream

import (
	"errors"
	"os"
)

// tryLock is not available here: there is no lock that tells the server
// processes sharing a file which one replicates.
func tryLock(*os.File) (bool, error) {
	return false, errors.New("--replicate is not supported on this operating system (no file lock to elect one replicator); run the litestream command beside the server instead")
}
