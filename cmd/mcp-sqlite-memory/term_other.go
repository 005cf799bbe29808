//go:build !linux && !windows && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package main

// isTerminalFd is false where the check is not implemented: no hint.
func isTerminalFd(uintptr) bool { return false }
