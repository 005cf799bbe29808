//go:build unix

package dbfile

import (
	"os"
	"syscall"
)

// linkCount is the number of hard links to the file fi describes.
func linkCount(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 1
}
