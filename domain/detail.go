package domain

import (
	"strconv"
)

// Detail is an ordered JSON object for audit rows and tool outputs. It is
// written the way Python's json.dumps(ensure_ascii=False) writes, with ", "
// and ": " separators, so audit rows read the same whichever server wrote
// them (docs/decisions.md#fixes-over-the-reference, item 11).
type Detail []Field

// Field is one key and value of a [Detail]. Values may be nil, bool, int,
// int64, string, *string, []string, [RawJSON] or a nested Detail.
type Field struct {
	Key   string
	Value any
}

// RawJSON is a value that is already JSON text; "" stands for null.
type RawJSON string

// String renders d, or "" when d is empty.
func (d Detail) String() string {
	if len(d) == 0 {
		return ""
	}
	return string(d.append(nil))
}

func (d Detail) append(b []byte) []byte {
	b = append(b, '{')
	for i, f := range d {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = AppendJSONString(b, f.Key)
		b = append(b, ": "...)
		b = appendValue(b, f.Value)
	}
	return append(b, '}')
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case string:
		return AppendJSONString(b, x)
	case *string:
		if x == nil {
			return append(b, "null"...)
		}
		return AppendJSONString(b, *x)
	case []string:
		if x == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, s := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = AppendJSONString(b, s)
		}
		return append(b, ']')
	case Detail:
		return x.append(b)
	case RawJSON:
		if x == "" {
			return append(b, "null"...)
		}
		return append(b, x...)
	default:
		return AppendJSONString(b, "unsupported")
	}
}
