package mcpserver

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// The memory that arrives without the agent asking: resources (the resume
// context, the latest checkpoint, one event by id, the views), prompts
// (resume, checkpoint, recall) with completions of their arguments, and
// notifications to the clients subscribed to a resource when a tool call
// changes it. Every read goes through the inbound port, so it is audited,
// capped and bounded by the call's deadline like a tool call.

// memoryOptions are the SDK server options the memory features need.
func memoryOptions(s *Server, opts *mcp.ServerOptions) {
	opts.CompletionHandler = func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
		if req.Params == nil || req.Params.Ref == nil || req.Params.Ref.Type != "ref/prompt" {
			return res, nil
		}
		ctx, cancel := s.callContext(ctx)
		defer cancel()
		ctx = s.sessionContext(ctx, req.Session)
		c, err := s.tools.Complete(ctx, req.Params.Ref.Name, req.Params.Argument.Name, req.Params.Argument.Value)
		if err != nil {
			return nil, err
		}
		if c.Values != nil {
			res.Completion.Values = c.Values
		}
		res.Completion.HasMore = c.More
		return res, nil
	}
	// A subscription to a resource this server does not serve is refused;
	// the SDK keeps the subscriptions.
	opts.SubscribeHandler = func(_ context.Context, req *mcp.SubscribeRequest) error {
		if _, err := domain.ParseResourceURI(req.Params.URI); err != nil {
			return mcp.ResourceNotFoundError(req.Params.URI)
		}
		return nil
	}
	opts.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
}

// registerMemory adds the resources and prompts the mode offers: the
// memory ones only when the memory tools are offered, the checkpoint
// prompt only when the server writes.
func registerMemory(s *Server, o Options) {
	memory := !o.ReadOnly || o.Memory
	for _, r := range domain.Resources() {
		if r.URI != domain.ResourceViews && !memory {
			continue
		}
		s.AddResource(&mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: "text/plain"}, s.readResource)
	}
	if memory {
		r := domain.EventResource
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: "text/plain"}, s.readResource)
	}
	for _, p := range domain.Prompts() {
		if !memory || o.ReadOnly && p.Name == domain.PromptCheckpoint {
			continue
		}
		mp := &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Args {
			mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		s.AddPrompt(mp, s.getPrompt(p))
	}
}

// readResource answers resources/read through the inbound port.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	ctx = s.sessionContext(ctx, req.Session)
	uri := req.Params.URI
	text, err := s.tools.ReadResource(ctx, uri)
	if errors.Is(err, domain.ErrNotFound) {
		if _, perr := domain.ParseResourceURI(uri); perr != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
	}
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
}

// getPrompt answers prompts/get for p through the inbound port.
func (s *Server) getPrompt(p domain.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		ctx, cancel := s.callContext(ctx)
		defer cancel()
		ctx = s.sessionContext(ctx, req.Session)
		text, err := s.tools.GetPrompt(ctx, p.Name, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Description: p.Description,
			Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
	}
}

// notifyChanged tells the clients subscribed to the resources a
// successful call of tool changed.
func (s *Server) notifyChanged(ctx context.Context, tool string) {
	for _, uri := range domain.ResourcesChangedBy(tool) {
		_ = s.ResourceUpdated(context.WithoutCancel(ctx), &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
}
