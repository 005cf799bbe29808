//go:build !unix

package ripgrep

import "os/exec"

// ownGroup leaves cmd as it is: process groups are a Unix notion. On
// Windows, cancelling kills rg itself (exec's default); a --rg program's
// own children are not tracked there.
func ownGroup(*exec.Cmd) {}

// killGroup does nothing where ownGroup does nothing.
func killGroup(*exec.Cmd) error { return nil }
