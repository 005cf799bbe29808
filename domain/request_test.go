package domain_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-sqlite-memory/mcp-sqlite-memory/domain"
)

// TestRequestsMatchTheirArgs checks every tool's request type against its
// declared arguments: a struct with one exported field per Arg, in the
// declared order, its json tag the Arg's name and its Go type the Arg's.
// A misspelt tag, a field left out or added, or a type that differs fails
// here, not as a zero value in a call.
func TestRequestsMatchTheirArgs(t *testing.T) {
	goType := map[domain.ArgType]reflect.Type{
		domain.ArgString:  reflect.TypeFor[string](),
		domain.ArgInteger: reflect.TypeFor[int](),
		domain.ArgBoolean: reflect.TypeFor[bool](),
		domain.ArgStrings: reflect.TypeFor[[]string](),
	}
	seen := map[reflect.Type]string{}
	for _, d := range domain.Tools() {
		rt := reflect.TypeOf(d.Request)
		if !assert.NotNil(t, rt, "%s declares no Request", d.Name) || !assert.Equal(t, reflect.Struct, rt.Kind(), d.Name) {
			continue
		}
		assert.Empty(t, seen[rt], "%s and %s share the request type %s", d.Name, seen[rt], rt)
		seen[rt] = d.Name
		if !assert.Equal(t, len(d.Args), rt.NumField(), "%s: %s has %d fields for %d arguments", d.Name, rt, rt.NumField(), len(d.Args)) {
			continue
		}
		for i, a := range d.Args {
			f := rt.Field(i)
			assert.True(t, f.IsExported(), "%s.%s is not exported", rt, f.Name)
			assert.Equal(t, a.Name, f.Tag.Get("json"), "%s: field %d (%s) is tagged for another argument", d.Name, i, f.Name)
			assert.Equal(t, goType[a.Type], f.Type, "%s.%s: the field's type is not the argument's", d.Name, a.Name)
		}
	}
}
