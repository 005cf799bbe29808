//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package litestream

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on the open file without waiting. held is
// false, with no error, when another process holds it. A flock belongs to the
// open file, not to the process, and is independent of the POSIX record
// locks SQLite takes on the database, so it can neither release nor be
// released by them; the kernel drops it when the process dies, however it
// dies.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
