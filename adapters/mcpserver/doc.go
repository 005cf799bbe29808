// Package mcpserver is the driving adapter: it exposes the core's tools
// (ports.Tools) over the Model Context Protocol with the official Go SDK.
// It owns everything MCP-shaped (tool names, descriptions, input schemas,
// annotations, the connect-time instructions) and nothing else.
package mcpserver
