// Package mcpserver is the driving adapter: it exposes the core's tools
// (ports.Tools) over the Model Context Protocol with the official Go SDK.
// It owns everything MCP-shaped and nothing else: the input schemas,
// annotations and argument decoding, read off the tool declarations of
// package domain (tools.go, args.go); each tool bound to its ports.Tools
// method (bind.go); the connect-time instructions; results as one text
// block (encode.go, encode_text.go); and the two transports, stdio behind
// the frame guard (frames.go, frameclass.go, framedecode.go, conn.go) and
// Streamable HTTP (http*.go).
package mcpserver
