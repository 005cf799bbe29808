// Package streamhttp is the MCP server's Streamable HTTP front end
// (--http): /mcp served by the SDK's handler for both protocol eras, and
// GET /healthz. In front of the SDK it checks the Host and Origin headers,
// the bearer token or OAuth access token, the session, the body size, the
// stdio guard's frame rules (package frame) and the session limit; every
// refusal says what to do and is logged at a bounded rate
// (docs/decisions.md#serving-over-http). It reaches the server only through
// its exported seams (Offers, AnswerRefusal, Reject, SetSessionIDs), so
// the server does not know it is served over HTTP.
package streamhttp
