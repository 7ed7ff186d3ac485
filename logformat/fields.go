package logformat

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Field-level helpers shared by the general decoder's tolerant types and
// the raw scanner (rawscan.go): keys matched on their bytes, objects
// read member by member, pointers and booleans read tolerantly.

// documentKeys are the top-level keys the union document decodes.
var documentKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[document]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		keys[name] = true
	}
	return keys
}()

// warnList collects warnings to be counted only if a decode succeeds.
type warnList struct{ kinds []string }

func (l *warnList) Warn(kind string) { l.kinds = append(l.kinds, kind) }

// objectFields reads an object, calling field for each key it may need
// (fieldKeys) with the decoder at its value, and skipping every other. A key
// written twice is read again (the last value wins, as in the reflective
// decoder). Keys are matched on the raw bytes: a line has dozens and none is
// allocated.
func objectFields(dec *jsontext.Decoder, field func(key string) error) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		name, err := unquote(raw)
		if err != nil {
			return err
		}
		key, ok := fieldKey(name)
		if !ok {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if err := field(key); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// seenKeys records the keys the raw scanner has read of an object, so that
// one written twice (which the reflective decoder reads as the last) gives up.
type seenKeys struct {
	keys [24]string
	n    int
}

// first reports whether key was not read before (and records it); a 25th
// key counts as read before: no decoded object has that many.
func (s *seenKeys) first(key string) bool {
	if slices.Contains(s.keys[:s.n], key) || s.n == len(s.keys) {
		return false
	}
	s.keys[s.n], s.n = key, s.n+1
	return true
}

// fieldKeys are the keys objectFields and the raw scanner read, interned:
// every name of the structs the raw scanner reads by plan (rawRoots), and
// those the readers of flexible types match by hand (objectFields, s.object).
var fieldKeys = func() map[string]string {
	keys := map[string]string{}
	seen := map[reflect.Type]bool{}
	for _, t := range rawRoots {
		tagNames(t, keys, seen)
	}
	for _, k := range []string{
		"id", "model", "role", "content", "usage", "input_tokens", "output_tokens", "cache_creation_input_tokens",
		"cache_read_input_tokens", "type", "name", "tool_use_id", "text", "is_error", "input", "subagent_type",
		"events", "timestamp", "nodeId", "status", "summary", "metadata", "toolName", "error",
		"durationMs", "interrupted", "exit_code", "info", "total_token_usage", "cached_input_tokens",
		"reasoning_output_tokens", "resource", "attributes", "scopeSpans", "spans", "traceId", "spanId",
		"parentSpanId", "startTimeUnixNano", "endTimeUnixNano", "key", "value", "code", "stringValue",
		"intValue", "doubleValue", "boolValue", "tool_call_id", "callId", "tool_name", "tool", "tool_category",
		"ended_at", "duration_ms", "context_contribution", "subagent_info", "phase_type", "context_used",
		"relevance", "usage_mode", "model_id", "total_duration_ms", "tool_calls_count", "errors_encountered",
		"description", "phase_id", "phase", "context_references", "rounds", "agentName", "maxSteps",
		"currentStep", "isStuck", "thinkActSteps", "thinkStartTime", "thinkEndTime", "actStartTime",
		"actEndTime", "errorMessage", "actionResult", "cached", "thoughts", "cache_creation", "ephemeral_1h_input_tokens", "git", "branch", "arguments", "command", "file_path", "notebook_path", "path", "pattern", "url", "query",
		"absolute_path", "args", "agentId", "uuid", "requestId", "message",
	} {
		keys[k] = k
	}
	return keys
}()

// keyIndex holds fieldKeys open-addressed on a slot made from a key's
// length and three of its bytes: every transcript line has dozens of keys,
// and hashing each whole for the map cost more than its decoding did.
var keyIndex = func() *[keySlots]string {
	var t [keySlots]string
	for _, k := range slices.Sorted(maps.Keys(fieldKeys)) { // the same table every run
		i := keySlot(k)
		for t[i] != "" {
			i = (i + 1) % keySlots
		}
		t[i] = k
	}
	return &t
}()

const keySlots = 512 // a power of two, several times len(fieldKeys)

func keySlot[T string | []byte](name T) uint {
	n := uint(len(name))
	if n == 0 {
		return 0
	}
	return (n*240 + uint(name[0])*248 + uint(name[n/2])*109 + uint(name[n-1])*130) % keySlots
}

// fieldKey is fieldKeys[string(name)] (no key of fieldKeys is empty).
func fieldKey(name []byte) (string, bool) {
	i, ok := fieldSlot(name)
	return keyIndex[i], ok
}

// fieldSlot is where name is in keyIndex.
func fieldSlot[T string | []byte](name T) (uint, bool) {
	for i := keySlot(name); keyIndex[i] != ""; i = (i + 1) % keySlots {
		if keyIndex[i] == string(name) {
			return i, true
		}
	}
	return 0, false
}

// fastPtr decodes a pointer-to-struct field as the tolerant decoder does:
// null clears it, an object fills it, any other value leaves it allocated
// and empty, with a warning.
func fastPtr[T any](dec *jsontext.Decoder, p **T, w Warner, fill func(*T) error) error {
	switch dec.PeekKind() {
	case 'n':
		*p = nil
		_, err := dec.ReadToken()
		return err
	case '{':
		if *p == nil {
			*p = new(T)
		}
		return fill(*p)
	}
	if *p == nil {
		*p = new(T)
	}
	w.Warn(WarnTypeMismatch)
	return dec.SkipValue()
}

// fastBool decodes a bool as the tolerant decoder does: null is false.
func fastBool(dec *jsontext.Decoder, p *bool, w Warner) error {
	switch dec.PeekKind() {
	case 't', 'f', 'n':
		tok, err := dec.ReadToken()
		if err == nil {
			*p = tok.Kind() == 't'
		}
		return err
	}
	w.Warn(WarnTypeMismatch)
	return dec.SkipValue()
}

func fastBoolPtr(dec *jsontext.Decoder, p **bool, w Warner) error {
	if dec.PeekKind() == 'n' {
		*p = nil
		_, err := dec.ReadToken()
		return err
	}
	if *p == nil {
		*p = new(bool)
	}
	return fastBool(dec, *p, w)
}
