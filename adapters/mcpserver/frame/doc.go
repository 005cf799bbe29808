// Package frame is the server's JSON-RPC wire layer: the only code that
// reads or writes JSON-RPC bytes. It guards the stdio input (every line is
// answered and the session goes on: frames that are not messages the SDK
// answers faithfully are refused, oversized ones scanned in constant
// memory), decodes each accepted line once (a plain request from the
// guard's own walk of the line, any other message with the SDK's
// jsonrpc.DecodeMessage) and hands the SDK decoded messages through its
// own mcp.Transport ([Stdio]); it encodes each outbound message by hand,
// splicing large tool texts in escaped once. The HTTP front end applies the
// same rules to request bodies ([Classify], [Scanner]).
//
// The bytes it writes are the bytes github.com/modelcontextprotocol/go-sdk
// v1.8.0 writes (jsonrpc.EncodeMessage, its marshalling of tool results),
// and the messages it decodes are those the SDK's decoder returns: the
// differential tests and fuzzers here (FuzzFrames, FuzzPlainRequest, the
// encode tests) compare with the SDK's own code, so an SDK upgrade that
// changes them fails here first. The go-sdk keeps its own wire in
// internal/jsonrpc2 for the same reason: one place owns the format.
package frame
