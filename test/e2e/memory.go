package e2e

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Memory is a process's resident set size now and at its peak, in kB, as
// Linux reports them in /proc/<pid>/status (VmRSS, VmHWM).
type Memory struct {
	RSS, Peak int
}

// ReadMemory reads a process's VmRSS and VmHWM. It works only on Linux;
// elsewhere it returns an error.
func ReadMemory(pid int) (Memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, err
	}
	defer f.Close()
	var m Memory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(value), " kB"))
		if err != nil {
			return Memory{}, fmt.Errorf("%s: %q: %w", name, value, err)
		}
		if name == "VmRSS" {
			m.RSS = kb
		} else {
			m.Peak = kb
		}
	}
	if err := sc.Err(); err != nil {
		return Memory{}, err
	}
	if m.RSS == 0 {
		return Memory{}, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return m, nil
}

// ResetPeak asks Linux to restart VmHWM from the current RSS (writing 5 to
// /proc/<pid>/clear_refs), so the peak of one call can be read. It reports
// whether the kernel allowed it; if not, VmHWM stays the peak since start.
func ResetPeak(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}
