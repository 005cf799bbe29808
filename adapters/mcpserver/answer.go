package mcpserver

import (
	"context"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// answer is the reply to a frame the guard refused, or nil when none is
// due (a notification or a response). A tool call is audited like any
// refused call, under the tool it names when this server offers it.
func (s *Server) answer(r frame.Refusal) []byte { return s.AnswerRefusal(context.Background(), r) }

// AnswerRefusal is the reply to a frame the guard refused, for a call
// whose context names its session (a front end with sessions), or nil when
// none is due; a refused tool call is audited.
func (s *Server) AnswerRefusal(ctx context.Context, r frame.Refusal) []byte {
	var err error = domain.Errorf(domain.ErrInvalidArgument, "%s", r.Reason())
	if r.Call() {
		tool := r.Tool()
		if !s.Offers(tool) {
			tool = "tools/call"
		}
		err = s.tools.Reject(ctx, tool, err)
	}
	if r.Silent() {
		return nil
	}
	var res any
	if r.ToolError() {
		res = result("", err)
	}
	reply, merr := frame.Reply(r.ID(), res, r.Code(), err.Error())
	if merr != nil {
		s.opts.Log.Warn("could not encode a refusal", "err", merr)
		return nil
	}
	return reply
}
