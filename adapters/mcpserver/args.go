package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// args are a call's decoded arguments by name, each of its declared Go
// type (string, int, bool, []string); an argument the call left out holds
// its declared default.
type args map[string]any

func (a args) str(name string) string    { v, _ := a[name].(string); return v }
func (a args) int(name string) int       { v, _ := a[name].(int); return v }
func (a args) bool(name string) bool     { v, _ := a[name].(bool); return v }
func (a args) strs(name string) []string { v, _ := a[name].([]string); return v }

// decode reads a call's arguments strictly against the tool's declared
// ones: unknown names, missing required ones and wrong types are argument
// errors that say what the tool takes. Bounds are the core's to check.
func decode(raw json.RawMessage, decl []domain.Arg, l domain.Limits) (args, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		raw = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, domain.Errorf(domain.ErrInvalidArgument, "arguments must be a JSON object")
	}
	byName := map[string]domain.Arg{}
	for _, a := range decl {
		byName[a.Name] = a
		if v, ok := obj[a.Name]; a.Required && (!ok || string(v) == "null") {
			return nil, domain.Errorf(domain.ErrInvalidArgument, "missing required argument %q", a.Name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if _, ok := byName[name]; !ok {
			return nil, domain.Errorf(domain.ErrInvalidArgument, "unknown argument %q; this tool takes %s", name, argList(decl))
		}
	}
	out := args{}
	for _, a := range decl {
		out[a.Name] = a.Value(l)
		v, ok := obj[a.Name]
		if !ok || string(v) == "null" {
			continue // left out: the default
		}
		if err := decodeOne(a, v, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodeOne decodes one given argument into out.
func decodeOne(a domain.Arg, raw json.RawMessage, out args) error {
	var err error
	switch a.Type {
	case domain.ArgInteger:
		var v int
		err = json.Unmarshal(raw, &v)
		out[a.Name] = v
	case domain.ArgBoolean:
		var v bool
		err = json.Unmarshal(raw, &v)
		out[a.Name] = v
	case domain.ArgStrings:
		var v []string
		err = json.Unmarshal(raw, &v)
		out[a.Name] = v
	default:
		var v string
		err = frame.UnmarshalString(raw, &v)
		out[a.Name] = v
	}
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		return domain.Errorf(domain.ErrInvalidArgument, "argument %q must be %s, got %s", a.Name, article(jsonType(a.Type)), te.Value)
	case err != nil:
		return domain.Errorf(domain.ErrInvalidArgument, "arguments could not be read: %v", err)
	}
	return nil
}

func article(kind string) string {
	switch kind {
	case "integer", "array", "object":
		return "an " + kind
	}
	return "a " + kind
}

// argList names the arguments a tool takes, sorted.
func argList(decl []domain.Arg) string {
	var names []string
	for _, a := range decl {
		names = append(names, a.Name)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "no arguments"
	}
	return strings.Join(names, ", ")
}
