package streamhttp

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// maxScanBytes bounds how much of an oversized body is scanned for its id
// and tool before it is answered anyway.
const maxScanBytes = 64 << 20

// bodyTimeout bounds the time a request body may take to arrive.
const bodyTimeout = 30 * time.Second

// readBody reads the whole body, at most --max-request-bytes of it. A
// larger one is refused with 413, as the stdio guard refuses an oversized
// frame: the rest is scanned in constant memory for its id and tool, a
// tools/call is audited, and the answer is a JSON-RPC error under the
// request's id, so the client shows the reason and keeps its session.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	max := int64(h.s.Options().Limits.MaxRequestBytes)
	if max <= 0 {
		max = int64(domain.DefaultLimits().MaxRequestBytes)
	}
	// A body that trickles in would hold its goroutine and the shutdown
	// drain; the headers have their own bound (http.Server).
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyTimeout))
	defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
	body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		httpRefuse(w, r, http.StatusBadRequest, "the request body could not be read: "+err.Error())
		return nil, false
	}
	if int64(len(body)) <= max {
		return body, true
	}
	var sc frame.Scanner
	_, _ = sc.Write(body)
	n, _ := io.Copy(&sc, io.LimitReader(r.Body, maxScanBytes))
	size := int64(len(body)) + n
	h.refusals.warn("refused an HTTP request", "status", http.StatusRequestEntityTooLarge, "bytes", size, "limit", max)
	rf := sc.Refusal(frame.CodeInvalidRequest, fmt.Sprintf("request is %d bytes or more, over the server's limit of %d bytes (--max-request-bytes); nothing was run. "+
		"Send less per call (split the content or the statement into several calls), or start the server with a larger --max-request-bytes", size, max))
	rf = rf.AsJSONRPCError()              // an HTTP error status carries a JSON-RPC error
	w.Header().Set("Connection", "close") // the rest of the body is not read
	if rf.ID() == nil {
		if rf.Call() {
			h.s.AnswerRefusal(h.sessionContext(r), rf) // audited all the same
		}
		httpRefuse(w, r, http.StatusRequestEntityTooLarge, rf.Reason())
		return nil, false
	}
	reply := h.s.AnswerRefusal(h.sessionContext(r), rf)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_, _ = w.Write(reply)
	return nil, false
}
