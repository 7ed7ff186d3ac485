package formats

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Claude Code transcripts are most of the bytes agentstat reads, and the
// reflective decode of the union document (with its per-value tolerance
// hook) costs several times the tokenizer. A line of a long JSONL file is
// first tried here: the fields a Claude Code line has are read token by
// token with the same leaf decoders, so the document and the warnings are
// exactly what the general decoder gives (a differential test and fuzz
// target hold them equal). Anything else (a key of another format, a key
// written twice) gives up, and the line goes to the general decoder.

// errNotClaude says the fast path gave up; nothing it read counts.
var errNotClaude = errors.New("not a plain Claude Code line")

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

// decodeClaudeFast decodes one line into d, or returns an error (errNotClaude,
// or the line is not valid JSON): the line must then go to the general
// decoder. Warnings are collected in w (which opts reports to) and are to be
// counted only on success.
func decodeClaudeFast(dec *jsontext.Decoder, d *document, w *warnList, opts json.Options) error {
	if dec.PeekKind() != '{' {
		return errNotClaude
	}
	return fastObject(dec, func(key string) error {
		switch key {
		case "type":
			return decodeStr(dec, &d.Type, w)
		case "sessionId":
			return decodeStr(dec, &d.SessionIDCamel, w)
		case "uuid":
			return decodeStr(dec, &d.UUID, w)
		case "leafUuid":
			return decodeStr(dec, &d.LeafUUID, w)
		case "requestId":
			return decodeStr(dec, &d.RequestID, w)
		case "agentId":
			return decodeStr(dec, &d.AgentID, w)
		case "timestamp":
			return decodeTime(dec, &d.Timestamp, w, opts)
		case "isSidechain":
			return fastBoolPtr(dec, &d.IsSidechain, w)
		case "isApiErrorMessage":
			return fastBoolPtr(dec, &d.IsAPIError, w)
		case "isMeta":
			return fastBool(dec, &d.IsMeta, w)
		case "toolUseResult":
			return d.ToolUseResult.decodeFlex(dec, w, opts)
		case "message":
			return fastPtr(dec, &d.Message, w, func(m *claudeMessage) error { return fastMessage(dec, m, w, opts) })
		}
		if documentKeys[key] {
			return errNotClaude // a field of another format: the general decoder decides
		}
		return dec.SkipValue()
	})
}

type warnList struct{ kinds []string }

func (l *warnList) Warn(kind string) { l.kinds = append(l.kinds, kind) }

// fastObject reads an object, calling field for each key with the decoder
// at its value; a key written twice gives up.
func fastObject(dec *jsontext.Decoder, field func(key string) error) error {
	return objectFields(dec, false, field)
}

// objectFields reads an object, calling field for each key it may need
// (fieldKeys) with the decoder at its value, and skipping every other. A key
// written twice is read again (the last value wins, as in the general
// decoder) when dupOK, else it gives up with errNotClaude. Keys are matched
// on the raw bytes: a line has dozens and none is allocated.
func objectFields(dec *jsontext.Decoder, dupOK bool, field func(key string) error) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	var seen seenKeys
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
		if !dupOK && !seen.first(key) {
			return errNotClaude
		}
		if err := field(key); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// seenKeys records the keys an object's decoder has read, so that one
// written twice (which the general decoder reads as the last) gives up.
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

// fieldKeys are the keys the token-level and raw decoders read, interned:
// every key of the union document, and those of the nested objects they
// decode.
var fieldKeys = func() map[string]string {
	keys := map[string]string{}
	for k := range documentKeys {
		keys[k] = k
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
		"actEndTime", "errorMessage", "actionResult", "cached", "thoughts",
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
	return (n*67 + uint(name[0])*3 + uint(name[n/2])*101 + uint(name[n-1])*31) % keySlots
}

// fieldKey is fieldKeys[string(name)] (no key of fieldKeys is empty).
func fieldKey(name []byte) (string, bool) {
	for i := keySlot(name); keyIndex[i] != ""; i = (i + 1) % keySlots {
		if keyIndex[i] == string(name) {
			return keyIndex[i], true
		}
	}
	return "", false
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

func fastMessage(dec *jsontext.Decoder, m *claudeMessage, w Warner, opts json.Options) error {
	return fastObject(dec, func(key string) error {
		switch key {
		case "id":
			return decodeStr(dec, &m.ID, w)
		case "model":
			return decodeStr(dec, &m.Model, w)
		case "role":
			return decodeStr(dec, &m.Role, w)
		case "content":
			if dec.PeekKind() == '[' {
				return fastBlocks(dec, &m.Content.Blocks, w)
			}
			return m.Content.decodeFlex(dec, w, opts)
		case "usage":
			return fastPtr(dec, &m.Usage, w, func(u *claudeUsageField) error {
				return fastObject(dec, func(key string) error {
					switch key {
					case "input_tokens":
						return decodeNum(dec, &u.Input, w)
					case "output_tokens":
						return decodeNum(dec, &u.Output, w)
					case "cache_creation_input_tokens":
						return decodeNum(dec, &u.CacheCreation, w)
					case "cache_read_input_tokens":
						return decodeNum(dec, &u.CacheRead, w)
					}
					return dec.SkipValue()
				})
			})
		}
		return dec.SkipValue()
	})
}

// fastBlocks decodes a content array as the general decoder decodes []claudeBlock.
func fastBlocks(dec *jsontext.Decoder, blocks *[]claudeBlock, w Warner) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	if *blocks == nil {
		*blocks = []claudeBlock{}
	}
	*blocks = (*blocks)[:0]
	for dec.PeekKind() != ']' {
		var b claudeBlock
		switch dec.PeekKind() {
		case '{':
			err := fastObject(dec, func(key string) error {
				switch key {
				case "type":
					return decodeStr(dec, &b.Type, w)
				case "id":
					return decodeStr(dec, &b.ID, w)
				case "name":
					return decodeStr(dec, &b.Name, w)
				case "tool_use_id":
					return decodeStr(dec, &b.ToolUseID, w)
				case "text":
					return b.Text.decodeFlex(dec, w, nil)
				case "is_error":
					return fastBoolPtr(dec, &b.IsError, w)
				case "input":
					return fastPtr(dec, &b.Input, w, func(in *claudeToolInput) error {
						return fastObject(dec, func(key string) error {
							if key == "subagent_type" {
								return decodeStr(dec, &in.SubagentType, w)
							}
							return dec.SkipValue()
						})
					})
				}
				return dec.SkipValue()
			})
			if err != nil {
				return err
			}
		case 'n':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
		default:
			w.Warn(WarnTypeMismatch)
			if err := dec.SkipValue(); err != nil {
				return err
			}
		}
		*blocks = append(*blocks, b)
	}
	_, err := dec.ReadToken()
	return err
}
