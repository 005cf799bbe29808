package app

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/ports"
)

// ReadResource returns one memory resource. Like a tool call it runs under
// the call's deadline and caps and leaves an audit row (tool
// "resources/read", query the URI): it carries stored data to the client.
func (s *Service) ReadResource(ctx context.Context, uri string) (string, error) {
	return s.runText(ctx, domain.AuditResourceRead, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(uri)
		ref, err := domain.ParseResourceURI(uri)
		if err != nil {
			return "", err
		}
		switch ref.URI {
		case domain.ResourceResume:
			return s.resume(ctx, sp, s.resumeDefaults())
		case domain.ResourceCheckpoint:
			st, err := s.d.Memory.Resume(ctx, 1, nil)
			if err != nil {
				return "", err
			}
			sp.setRows(boolInt(st.Checkpoint != nil))
			return domain.RenderCheckpoint(st, s.limits.MaxResultBytes), nil
		case domain.ResourceViews:
			objs, err := s.d.Schema.Objects(ctx)
			if err != nil {
				return "", err
			}
			return domain.RenderViews(objs, s.limits.MaxResultBytes), nil
		}
		if s.d.Recall == nil {
			return "", domain.Errorf(domain.ErrUnavailable, "this server cannot read events by id")
		}
		e, err := s.d.Recall.Event(ctx, ref.EventID)
		if err != nil {
			return "", err
		}
		sp.setRows(1)
		if r, found, err := s.d.Recall.Retraction(ctx, e.ID); err != nil {
			return "", err
		} else if found {
			return domain.RenderRetracted(e, r), nil
		}
		return domain.RenderEvent(e, s.limits.MaxResultBytes), nil
	})
}

// resumeDefaults are get_resume_context's arguments left out.
func (s *Service) resumeDefaults() domain.GetResumeContextRequest {
	return domain.GetResumeContextRequest{
		MaxEvents: domain.ArgMaxEvents.Value(s.limits).(int),
		MaxBytes:  domain.ArgResumeMaxBytes.Value(s.limits).(int),
	}
}

// GetPrompt renders a prompt, audited like a tool call (tool
// "prompts/get", query the name and arguments).
func (s *Service) GetPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	return s.runText(ctx, domain.AuditPromptGet, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(promptQuery(name, args))
		p, err := domain.FindPrompt(name)
		if err != nil {
			return "", err
		}
		for _, k := range slices.Sorted(maps.Keys(args)) {
			if !slices.ContainsFunc(p.Args, func(a domain.PromptArg) bool { return a.Name == k }) {
				return "", domain.Errorf(domain.ErrInvalidArgument, "prompt %s takes no argument %s", p.Name, domain.Quote(k))
			}
		}
		switch p.Name {
		case domain.PromptResume:
			r := s.resumeDefaults()
			r.ExcludeKinds = args["exclude_kinds"]
			out, err := s.resume(ctx, sp, r)
			if err != nil {
				return "", err
			}
			return domain.ResumePrompt(out), nil
		case domain.PromptCheckpoint:
			st, err := s.d.Memory.Resume(ctx, 1, nil)
			if err != nil {
				return "", err
			}
			sp.setRows(boolInt(st.Checkpoint != nil))
			return domain.CheckpointPrompt(domain.RenderCheckpoint(st, s.limits.MaxResultBytes), st.Total), nil
		}
		var kinds []string
		if k := domain.StripSpace(args["kind"]); k != "" {
			kinds = []string{k}
		}
		r := domain.SearchMemoryRequest{Query: args["query"], Kinds: kinds, Session: args["session"], Limit: domain.ArgMemoryLimit.Value(s.limits).(int)}
		out, err := s.searchMemory(ctx, sp, r)
		if err != nil {
			return "", err
		}
		return domain.RecallPrompt(r.Query, out), nil
	})
}

func promptQuery(name string, args map[string]string) string {
	var b strings.Builder
	b.WriteString(name)
	for _, k := range slices.Sorted(maps.Keys(args)) {
		b.WriteString(" " + k + "=" + args[k])
	}
	return b.String()
}

// Complete offers the kinds or sessions that complete a prompt argument,
// from the newest events only (domain.RecallScan), audited like a tool call.
func (s *Service) Complete(ctx context.Context, prompt, argument, value string) (ports.Completion, error) {
	var c ports.Completion
	_, err := s.run(ctx, domain.AuditComplete, func(ctx context.Context, sp *span) (string, error) {
		sp.setQuery(prompt + " " + argument + "=" + value)
		p, err := domain.FindPrompt(prompt)
		if err != nil {
			return "", err
		}
		i := slices.IndexFunc(p.Args, func(a domain.PromptArg) bool { return a.Name == argument })
		if i < 0 || p.Args[i].Complete == 0 || s.d.Recall == nil {
			sp.setRows(0)
			return "", nil
		}
		a, done, prefix := p.Args[i], "", value
		if a.List {
			if j := strings.LastIndexByte(value, ','); j >= 0 {
				done, prefix = value[:j+1], value[j+1:]
			}
			prefix = strings.TrimLeft(prefix, " ")
		}
		vals, more, err := s.d.Recall.Values(ctx, a.Complete, prefix, domain.MaxCompletions)
		if err != nil {
			return "", err
		}
		for _, v := range vals {
			c.Values = append(c.Values, done+v)
		}
		c.More = more
		sp.setRows(int64(len(c.Values)))
		return "", nil
	})
	return c, err
}
