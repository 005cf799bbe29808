//go:build profilehook && unix

package main

// The measurement hook (package profilehook), only in -tags profilehook builds.
import _ "github.com/mcp-sqlite-memory/mcp-sqlite-memory/cmd/profilehook"
