package mcpserver

import (
	"context"
	"errors"
	"io"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// elicitation asks the person behind one client session with an MCP form
// elicitation (elicitation/create): the question's text as the message,
// and a form with one required yes/no field, so an accept that does not
// carry an explicit yes is not a yes.
type elicitation struct {
	ss *mcp.ServerSession
}

var _ ports.Confirmer = (*elicitation)(nil)

// confirmField is the form's one field.
const confirmField = "run"

// confirmSchema is the form: {"run": boolean}, required.
var confirmSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		confirmField: map[string]any{
			"type":        "boolean",
			"title":       "Run this statement",
			"description": "Tick to run it now (a snapshot is written first); leave unticked, decline or cancel to run nothing.",
		},
	},
	"required": []any{confirmField},
}

// protocolNoServerRequests is the first protocol revision that forbids a
// server-initiated elicitation/create while a call runs: the question
// travels as an input request of the call's result instead, and the
// client's retry of the call brings the answer (multi round-trip requests,
// inputround.go).
const protocolNoServerRequests = "2026-07-28"

// withElicitation puts in ctx the way to ask the person behind the call's
// client, when its client declared it can answer form elicitations: an
// [elicitation] on revisions that let the server ask while the call runs,
// an [inputRound] on later ones (the returned round then holds what the
// call's result must carry). Otherwise the core falls back
// (--confirm-fallback).
func (s *Server) withElicitation(ctx context.Context, req *mcp.CallToolRequest) (context.Context, *inputRound) {
	if req == nil || req.Session == nil {
		return ctx, nil
	}
	ss := req.Session
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return ctx, nil
	}
	caps := ip.Capabilities.Elicitation
	if caps.Form == nil && caps.URL != nil {
		return ctx, nil // URL mode only: no form to answer
	}
	if ip.ProtocolVersion >= protocolNoServerRequests {
		r := &inputRound{keys: s.rounds, params: req.Params}
		return ports.WithConfirmer(ctx, r), r
	}
	return ports.WithConfirmer(ctx, &elicitation{ss: ss}), nil
}

// Confirm sends the question and reads the answer. Only an accept whose
// content says run=true approves; a timeout, a client that goes away or
// an answer that does not match the form counts as no.
func (e *elicitation) Confirm(ctx context.Context, q domain.Question) domain.Decision {
	d := domain.Decision{By: domain.DecidedByClient}
	res, err := e.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: q.Text(), RequestedSchema: confirmSchema})
	if err != nil {
		d.Outcome, d.Note = elicitFailure(ctx, err)
		return d
	}
	return decide(d, res)
}

// elicitFailure words a question that got no answer: the wait ran out,
// the call ended or its client went away, or the client answered with an
// error. A client that goes away can end the question either way round:
// its call's context is cancelled, or the question fails first with the
// connection's own end (io.EOF and kin, or the cancel of the SDK's reader,
// context.Canceled), before the call's cancel arrives.
func elicitFailure(ctx context.Context, err error) (domain.Outcome, string) {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return domain.OutcomeTimedOut, "nobody answered within --confirm-wait"
	case ctx.Err() != nil || errors.Is(err, context.Canceled) || connectionEnded(err):
		return domain.OutcomeGone, "the client went away before the person answered"
	}
	return domain.OutcomeInvalid, "the client's answer could not be used"
}

// connectionEnded reports whether err is the end of the connection to
// the client: the SDK's ErrConnectionClosed, or the transport's own end
// of stream or closed pipe.
func connectionEnded(err error) bool {
	for _, end := range []error{mcp.ErrConnectionClosed, io.EOF, io.ErrUnexpectedEOF, io.ErrClosedPipe, net.ErrClosed} {
		if errors.Is(err, end) {
			return true
		}
	}
	return false
}

// decide reads a person's answer to the form.
func decide(d domain.Decision, res *mcp.ElicitResult) domain.Decision {
	if res == nil {
		d.Outcome, d.Note = domain.OutcomeInvalid, "the client sent no answer"
		return d
	}
	switch res.Action {
	case "accept":
		run, ok := res.Content[confirmField].(bool)
		switch {
		case !ok || len(res.Content) != 1:
			d.Outcome, d.Note = domain.OutcomeInvalid, "the accepted form did not say run=true or run=false"
		case run:
			d.Outcome = domain.OutcomeApproved
		default:
			d.Outcome, d.Note = domain.OutcomeDeclined, "the form was sent back with run unticked"
		}
	case "decline":
		d.Outcome = domain.OutcomeDeclined
	case "cancel":
		d.Outcome = domain.OutcomeCancelled
	default:
		d.Outcome, d.Note = domain.OutcomeInvalid, "the client answered with an unknown action"
	}
	return d
}
