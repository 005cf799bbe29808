package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// timeTick is the unit of the CPU times in /proc/<pid>/stat: USER_HZ,
// which Linux fixes at 100 per second for every architecture's user ABI.
const timeTick = 10 * time.Millisecond

// TimeCPU reads the CPU time a process has used so far, user plus system
// (utime + stime in /proc/<pid>/stat). It works only on Linux; elsewhere
// it returns an error.
func TimeCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields after the last ')' start at field 3 (state).
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var total time.Duration
	for _, s := range f[11:13] { // utime (field 14), stime (field 15)
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %q: %w", pid, s, err)
		}
		total += time.Duration(n) * timeTick
	}
	return total, nil
}
