package logsynth

import (
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// O is a JSON object with its keys in the order written: alternating key
// and value. Values are string, int, int64, float64, bool, nil, O, []any or
// raw (pre-encoded JSON).
type O []any

// raw is JSON text written as is.
type raw string

// appendJSON appends v as JSON to dst.
func appendJSON(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		out, err := jsontext.AppendQuote(dst, v)
		if err != nil {
			panic(err) // generated text is always valid UTF-8
		}
		return out
	case raw:
		return append(dst, v...)
	case bool:
		return strconv.AppendBool(dst, v)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case float64:
		return strconv.AppendFloat(dst, v, 'f', -1, 64)
	case O:
		dst = append(dst, '{')
		for i := 0; i+1 < len(v); i += 2 {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, v[i].(string))
			dst = append(dst, ':')
			dst = appendJSON(dst, v[i+1])
		}
		return append(dst, '}')
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e)
		}
		return append(dst, ']')
	case []string:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e)
		}
		return append(dst, ']')
	}
	panic("logsynth: cannot encode " + typeName(v))
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
