package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/adapters/mcpserver/frame"
	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// request is how one tool's calls are decoded: its declaration and, for
// each declared argument, the field of its request type
// ([domain.Tool.Request]) tagged with the argument's name. This file is
// the one place that reads a request type by reflection.
type request struct {
	tool   domain.Tool
	typ    reflect.Type
	fields []int // fields[i] holds tool.Args[i]
}

// requestOf reads the tool's request type. A field missing, extra or of
// another type than its argument's (the Go type of its default) is a
// declaration bug (domain's
// TestRequestsMatchTheirArgs catches it first): it panics.
func requestOf(d domain.Tool) request {
	t := reflect.TypeOf(d.Request)
	if t == nil || t.Kind() != reflect.Struct || t.NumField() != len(d.Args) {
		panic(fmt.Sprintf("mcpserver: %s's request type %v does not have one field per argument", d.Name, t))
	}
	r := request{tool: d, typ: t, fields: make([]int, len(d.Args))}
	for i, a := range d.Args {
		f, ok := fieldTagged(t, a.Name)
		if !ok || f.Type != reflect.TypeOf(a.Value(domain.Limits{})) {
			panic(fmt.Sprintf("mcpserver: %s's request type %v has no field json:%q of the argument's type", d.Name, t, a.Name))
		}
		r.fields[i] = f.Index[0]
	}
	return r
}

func fieldTagged(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("json") == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// decode reads a call's arguments strictly against the tool's declared
// ones into a new value of its request type: unknown names (with the
// declared name meant, when one is close), missing required ones and wrong
// types are argument errors that say what the tool takes. A declared alias
// stands for its argument; giving both is an error. An argument left out
// (or null) holds its declared default. Bounds are the core's to check.
func (r request) decode(raw json.RawMessage, l domain.Limits) (reflect.Value, error) {
	decl := r.tool.Args
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		raw = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return reflect.Value{}, domain.Errorf(domain.ErrInvalidArgument, "arguments must be a JSON object")
	}
	if err := resolveAliases(obj, decl); err != nil {
		return reflect.Value{}, err
	}
	byName := map[string]domain.Arg{}
	for _, a := range decl {
		byName[a.Name] = a
	}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if _, ok := byName[name]; !ok {
			if near := nearestArg(name, decl); near != "" {
				return reflect.Value{}, domain.Errorf(domain.ErrInvalidArgument, "unknown argument %q; did you mean %q? This tool takes %s", name, near, argList(decl))
			}
			return reflect.Value{}, domain.Errorf(domain.ErrInvalidArgument, "unknown argument %q; this tool takes %s", name, argList(decl))
		}
	}
	for _, a := range decl {
		if v, ok := obj[a.Name]; a.Required && (!ok || string(v) == "null") {
			return reflect.Value{}, domain.Errorf(domain.ErrInvalidArgument, "missing required argument %q", a.Name)
		}
	}
	out := reflect.New(r.typ).Elem()
	for i, a := range decl {
		f := out.Field(r.fields[i])
		v, ok := obj[a.Name]
		if !ok || string(v) == "null" {
			if a.Default != nil { // left out: the default (else the zero value)
				f.Set(reflect.ValueOf(a.Default(l)))
			}
			continue
		}
		if err := decodeOne(a, v, f); err != nil {
			return reflect.Value{}, err
		}
	}
	return out, nil
}

// resolveAliases renames each declared alias in obj to its argument's
// name. An alias that is itself another argument's name (create_view has
// no query argument, so query is its select_sql) never shadows it.
func resolveAliases(obj map[string]json.RawMessage, decl []domain.Arg) error {
	declared := map[string]bool{}
	for _, a := range decl {
		declared[a.Name] = true
	}
	for _, a := range decl {
		for _, alias := range a.Aliases {
			v, ok := obj[alias]
			if !ok || declared[alias] {
				continue
			}
			if _, both := obj[a.Name]; both {
				return domain.Errorf(domain.ErrInvalidArgument, "%q and %q are the same argument: give only %q", a.Name, alias, a.Name)
			}
			delete(obj, alias)
			obj[a.Name] = v
		}
	}
	return nil
}

// nearestArg is the declared argument an unknown name most likely meant:
// one that differs only in case, '-' for '_', or a "_name" suffix, one
// the name ends or starts with as a word (view_name: name), or one at most
// two edits away; "" when none is that close.
func nearestArg(name string, decl []domain.Arg) string {
	norm := func(s string) string {
		s = strings.ToLower(strings.ReplaceAll(s, "-", "_"))
		return strings.TrimSuffix(s, "_name")
	}
	if len(name) > 64 {
		return "" // no declared name is that long; spare the distance
	}
	best, bestDist := "", 3
	for _, a := range decl {
		n := strings.ToLower(name)
		if norm(name) == norm(a.Name) || strings.HasSuffix(n, "_"+a.Name) || strings.HasPrefix(n, a.Name+"_") {
			return a.Name
		}
		if d := editDistance(norm(name), norm(a.Name)); d < bestDist {
			best, bestDist = a.Name, d
		}
	}
	if len(name) <= bestDist { // "x" is two edits from any two-letter name
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of two short names, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// decodeOne decodes one given argument into its field.
func decodeOne(a domain.Arg, raw json.RawMessage, field reflect.Value) error {
	var err error
	if a.Type == domain.ArgString {
		err = frame.UnmarshalString(raw, field.Addr().Interface().(*string))
	} else {
		err = json.Unmarshal(raw, field.Addr().Interface())
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
