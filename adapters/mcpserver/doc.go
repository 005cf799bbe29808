// Package mcpserver is the driving adapter: it exposes the core's tools
// (ports.Tools) over the Model Context Protocol with the official Go SDK.
// It owns everything MCP-shaped and nothing else: the input schemas,
// annotations and argument decoding, read off the tool declarations of
// package domain (tools.go, args.go); each tool bound to its ports.Tools
// method (bind.go); the connect-time instructions; results as one text
// block; and the stdio transport. Streamable HTTP is its sub-package
// streamhttp, over the server's exported seams. The JSON-RPC bytes themselves (the frame guard, decoding, encoding, the
// stdio mcp.Transport) are package frame's, the only code that reads or
// writes them.
package mcpserver
