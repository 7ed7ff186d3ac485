package jsonscan

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentstat/agentstat/logformat/clamp"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Warner counts warnings by kind.
type Warner interface{ Warn(kind string) }

// The warnings the decoders count.
const (
	WarnTypeMismatch = "type_mismatch" // a field held a JSON type the reader cannot use; it was ignored
	WarnBadNumber    = "bad_number"    // a number out of float64 range or a non-numeric string
	WarnBadTimestamp = "bad_timestamp" // a timestamp in no known spelling
)

// Str is a string that may be written as a JSON string, number or boolean.
type Str struct {
	V   string
	Set bool
}

// Num is a number that may be written as a JSON number or a numeric string.
type Num struct {
	V   float64
	Set bool
}

// Int returns the number as an int64 (truncated), or 0 when unset.
func (n Num) Int() int64 {
	if !n.Set {
		return 0
	}
	return int64(n.V)
}

// Time is a timestamp in any of the spellings docs/metrics.md lists. A
// timestamp without a zone (Naive) is resolved in the --tz zone when it is
// used, by In; T holds it as written, its wall clock read in UTC.
type Time struct {
	T     time.Time
	Naive bool
	Set   bool
}

// In returns the instant, reading a zone-less timestamp in loc.
func (t Time) In(loc *time.Location) time.Time {
	if !t.Set {
		return time.Time{}
	}
	if t.Naive {
		y, mo, d := t.T.Date()
		h, mi, s := t.T.Clock()
		return binaryZone(time.Date(y, mo, d, h, mi, s, t.T.Nanosecond(), loc))
	}
	return t.T
}

// DecodeOptions are the options every reader decodes with: duplicate keys are
// allowed (the last one wins), and mismatched values are skipped with a warning.
func DecodeOptions(w Warner) json.Options {
	var opts json.Options
	opts = json.JoinOptions(
		jsontext.AllowDuplicateNames(true),
		json.WithUnmarshalers(json.UnmarshalFromFunc(func(dec *jsontext.Decoder, v any) error {
			return tolerate(dec, v, w, opts)
		})),
	)
	return opts
}

// Flexible is a field that may take several JSON shapes; it decodes itself.
type Flexible interface {
	DecodeFlex(dec *jsontext.Decoder, w Warner, opts json.Options) error
}

func tolerate(dec *jsontext.Decoder, v any, w Warner, opts json.Options) error {
	switch p := v.(type) {
	case *Str:
		return decodeStr(dec, p, w)
	case *Num:
		return DecodeNum(dec, p, w)
	case *Time:
		return decodeTime(dec, p, w, opts)
	case Flexible:
		return p.DecodeFlex(dec, w, opts)
	}
	kind := dec.PeekKind()
	if kind == 'n' || kind == 0 {
		return errors.ErrUnsupported
	}
	want := byte(0)
	switch reflect.TypeOf(v).Elem().Kind() {
	case reflect.Struct, reflect.Map:
		want = '{'
	case reflect.Slice:
		want = '['
	case reflect.String:
		want = '"'
	case reflect.Bool:
		if kind == 't' || kind == 'f' {
			return errors.ErrUnsupported
		}
		want = 't'
	case reflect.Interface:
		return errors.ErrUnsupported
	case reflect.Float64, reflect.Int, reflect.Int64:
		want = '0'
	default:
		return errors.ErrUnsupported
	}
	if byte(kind) == want {
		return errors.ErrUnsupported
	}
	w.Warn(WarnTypeMismatch)
	return dec.SkipValue()
}

func decodeStr(dec *jsontext.Decoder, p *Str, w Warner) error {
	if k := dec.PeekKind(); k == '{' || k == '[' {
		w.Warn(WarnTypeMismatch)
		return dec.SkipValue()
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case '"':
		*p = Str{V: tok.String(), Set: true}
	case '0':
		*p = Str{V: tok.String(), Set: true}
	case 't', 'f':
		*p = Str{V: strconv.FormatBool(tok.Bool()), Set: true}
	}
	return nil
}

// DecodeStrPrefix is decodeStr keeping no more than the first n bytes of a
// string (cut anywhere, even inside a character: for text only ever shown
// through reader.ClipString at less than n). Text of which only a preview is shown
// is most of a transcript's, and tok.String copied it whole, twice when it
// held an escape.
func DecodeStrPrefix(dec *jsontext.Decoder, p *Str, w Warner, n int) error {
	if dec.PeekKind() != '"' {
		return decodeStr(dec, p, w)
	}
	s, err := ReadStringPrefix(dec, n)
	if err == nil {
		*p = Str{V: s, Set: true}
	}
	return err
}

// ReadStringPrefix reads a string value (the decoder must be at one) and
// returns its first n bytes, unquoting it in a reused buffer.
func ReadStringPrefix(dec *jsontext.Decoder, n int) (string, error) {
	raw, err := dec.ReadValue()
	if err != nil {
		return "", err
	}
	return stringPrefix(raw, n)
}

// stringPrefix is the first n bytes of the string raw (quoted, valid JSON).
// Only as much of it as they come from is unescaped: a message's text is
// kept to its first 2,000 bytes, and may run to hundreds of kilobytes.
func stringPrefix(raw []byte, n int) (s string, err error) {
	inner := raw[1 : len(raw)-1]
	head := inner[:min(n, len(inner))]
	if bytes.IndexByte(head, '\\') < 0 { // the text begins with these very bytes
		return string(head), nil
	}
	buf := unquoteBufs.Get().(*[]byte)
	defer unquoteBufs.Put(buf)
	text, ok := appendUnescapedUpTo((*buf)[:0], inner, n)
	*buf = text[:0]
	if !ok { // a surrogate escape: jsontext unquotes the whole
		err = WithUnquoted(raw, func(text []byte) { s = string(text[:min(n, len(text))]) })
		return s, err
	}
	return string(text[:min(n, len(text))]), nil
}

// WithUnquoted calls use with the text of the string raw (quoted, valid
// JSON): the bytes between the quotes when it holds no escape, else the
// text unescaped in a reused buffer. text is only valid during the call.
func WithUnquoted(raw []byte, use func(text []byte)) error {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		use(inner)
		return nil
	}
	buf := unquoteBufs.Get().(*[]byte)
	defer unquoteBufs.Put(buf)
	text, err := appendUnquoted((*buf)[:0], raw)
	if cap(text) <= clamp.MaxString { // the clamp bounds strings: this is the usual case
		*buf = text[:0]
	}
	if err != nil {
		return err
	}
	use(text)
	return nil
}

var unquoteBufs = sync.Pool{New: func() any { return new([]byte) }}

// unquote is a JSON string's content: the raw bytes between the quotes
// when it holds no escape (no copy), else the unescaped bytes.
func unquote(raw jsontext.Value) ([]byte, error) {
	if v := []byte(raw[1 : len(raw)-1]); bytes.IndexByte(v, '\\') < 0 {
		return v, nil
	}
	// At most as long: appended to nil, a long string's bytes were copied at every growth.
	return appendUnquoted(make([]byte, 0, len(raw)), raw)
}

// appendUnquoted is jsontext.AppendUnquote for a string token a decoder has
// validated (jsontext, or the raw scanner): the runs between backslashes
// are copied whole, where jsontext tests every byte of them (a quarter of
// the CPU a Codex rollout takes to read). A surrogate escape is left to jsontext.
func appendUnquoted(dst, raw []byte) ([]byte, error) {
	if out, ok := appendUnescaped(dst, raw[1:len(raw)-1]); ok {
		return out, nil
	}
	return jsontext.AppendUnquote(dst, raw)
}

// appendUnescaped appends s, a valid string's content, unescaped; ok is
// false (dst's bytes past its length written over) at a surrogate escape
// or anything a valid string does not hold.
func appendUnescaped(dst, s []byte) ([]byte, bool) { return appendUnescapedUpTo(dst, s, math.MaxInt) }

// appendUnescapedUpTo is appendUnescaped stopping once dst holds at least
// limit bytes (all of s's text if it has fewer).
func appendUnescapedUpTo(dst, s []byte, limit int) ([]byte, bool) {
	for len(dst) < limit {
		i := bytes.IndexByte(s[:min(len(s), limit-len(dst))], '\\') // past the limit, plain bytes are not needed
		if i < 0 {
			return append(dst, s[:min(len(s), limit-len(dst))]...), true
		}
		dst = append(dst, s[:i]...)
		if i+1 == len(s) {
			return dst, false
		}
		switch c := s[i+1]; c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			v, ok := 0, false
			if i+6 <= len(s) {
				v, ok = clamp.Hex4(s[i+2 : i+6])
			}
			if !ok || 0xD800 <= v && v < 0xE000 {
				return dst, false
			}
			dst, s = utf8.AppendRune(dst, rune(v)), s[i+6:]
			continue
		default:
			return dst, false
		}
		s = s[i+2:]
	}
	return dst, true
}

// DecodeNum decodes a number, or a numeric string, into p; another kind
// is a type_mismatch, a number out of range or a string of no number a
// bad_number.
func DecodeNum(dec *jsontext.Decoder, p *Num, w Warner) error {
	if k := dec.PeekKind(); k == '{' || k == '[' {
		w.Warn(WarnTypeMismatch)
		return dec.SkipValue()
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	var text string
	switch tok.Kind() {
	case '0':
		text = tok.String()
	case '"':
		text = strings.TrimSpace(tok.String())
		if text == "" {
			return nil
		}
	case 'n':
		return nil
	default:
		w.Warn(WarnTypeMismatch)
		return nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		w.Warn(WarnBadNumber)
		return nil
	}
	*p = Num{V: f, Set: true}
	return nil
}

func decodeTime(dec *jsontext.Decoder, p *Time, w Warner, opts json.Options) error {
	switch dec.PeekKind() {
	case '[': // a Jackson LocalDateTime array [y, m, d, h, mi, s, ns]
		var parts []Num
		if err := json.UnmarshalDecode(dec, &parts, opts); err != nil {
			return err
		}
		if t, ok := jacksonTime(parts); ok {
			*p = Time{T: t, Naive: true, Set: true}
		} else {
			w.Warn(WarnBadTimestamp)
		}
		return nil
	case '{':
		w.Warn(WarnBadTimestamp)
		return dec.SkipValue()
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case '0':
		timeNumber(tok.String(), p, w)
	case '"':
		timeText(tok.String(), p, w)
	case 'n':
	default:
		w.Warn(WarnBadTimestamp)
	}
	return nil
}

// timeNumber reads a timestamp written as a JSON number (epoch seconds or
// milliseconds) into p.
func timeNumber(text string, p *Time, w Warner) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.Abs(f) > maxEpoch {
		w.Warn(WarnBadTimestamp)
		return
	}
	*p = Time{T: epochTime(f), Set: true}
}

// timeText reads a timestamp string into p (a blank one leaves p alone).
func timeText(text string, p *Time, w Warner) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	t, naive, ok := ParseTimestamp(text)
	if !ok {
		w.Warn(WarnBadTimestamp)
		return
	}
	*p = Time{T: t, Naive: naive, Set: true}
}

// maxEpoch bounds an epoch number (milliseconds up to the year 33658): a
// larger number is not a time.
const maxEpoch = 1e15

// epochTime reads an epoch number: seconds below 1e11, else milliseconds.
func epochTime(f float64) time.Time {
	if math.Abs(f) < 1e11 {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
	}
	ms, frac := math.Modf(f)
	return time.UnixMilli(int64(ms)).Add(time.Duration(math.Round(frac * 1e6))).UTC()
}

func jacksonTime(p []Num) (time.Time, bool) {
	if len(p) < 3 || len(p) > 7 {
		return time.Time{}, false
	}
	var f [7]int
	for i, n := range p {
		if !n.Set || n.V != math.Trunc(n.V) || n.V < 0 || n.V > 2e9 {
			return time.Time{}, false
		}
		f[i] = int(n.V)
	}
	if f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[3] > 23 || f[4] > 59 || f[5] > 60 || f[6] > 999999999 {
		return time.Time{}, false
	}
	t := time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], f[6], time.UTC)
	if t.Day() != f[2] { // 31 February and the like
		return time.Time{}, false
	}
	return t, true
}

var zonedLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04Z07:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02 15:04:05Z0700",
	"2006-01-02T15:04:05 Z07:00",
}

var naiveLayouts = []string{
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
}

// ParseTimestamp parses an ISO-8601 timestamp with or without zone, with 0–9
// fractional digits and optional seconds, or an epoch number written as text.
// naive reports that the text had no zone.
func ParseTimestamp(s string) (t time.Time, naive, ok bool) {
	// No number has a colon: a timestamp with a time of day skips
	// ParseFloat and the error it would allocate.
	if !strings.Contains(s, ":") {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			if math.Abs(f) > maxEpoch || math.IsNaN(f) {
				return time.Time{}, false, false
			}
			return epochTime(f), false, true
		}
	}
	if len(s) < 10 || len(s) > 64 {
		return time.Time{}, false, false
	}
	// A zone is a Z or a sign after the date. Without one every zoned
	// layout fails, and each failure allocates its error (planexec's
	// timestamps have no zone).
	if strings.ContainsAny(s[10:], "Z+-") {
		for _, l := range zonedLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return binaryZone(t), false, true
			}
		}
	}
	for _, l := range naiveLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true, true
		}
	}
	return time.Time{}, false, false
}

// binaryZone is t, in UTC if its zone is one to two minutes west of UTC
// (a timestamp's "-00:01", or Europe/London's local mean time, -00:01:15,
// for a zone-less time before 1847 read with --tz Europe/London): Go's
// binary form of a time reserves that offset, and the run details' spill
// and the partial files, which hold times in it, failed the whole report.
func binaryZone(t time.Time) time.Time {
	if _, offset := t.Zone(); offset/60 == -1 {
		return t.UTC()
	}
	return t
}

// IsInvalidUTF8 reports whether a decode error is the decoder's invalid UTF-8 error.
func IsInvalidUTF8(err error) bool {
	var se *jsontext.SyntacticError
	return errors.As(err, &se) && se.Err != nil && se.Err.Error() == "invalid UTF-8"
}

// DecodeEach decodes a value as the reflective decoder decodes a slice of
// T, but one element at a time: reset(false) for null, a warning for
// another kind, and for an array reset(true) then add for each element,
// which it may keep as much or as little of as it needs.
func DecodeEach[T any](dec *jsontext.Decoder, w Warner, opts json.Options, reset func(array bool), add func(*T)) error {
	switch dec.PeekKind() {
	case 'n':
		reset(false)
		return dec.SkipValue()
	case '[':
	default:
		w.Warn(WarnTypeMismatch)
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	reset(true)
	for dec.PeekKind() != ']' {
		var e T
		if err := json.UnmarshalDecode(dec, &e, opts); err != nil {
			return err
		}
		add(&e)
	}
	_, err := dec.ReadToken()
	return err
}

// DecodeTextOrObject decodes a value written as a string (text) or as an
// object of type O (obj): null is nothing, another kind a warning.
func DecodeTextOrObject[O any](dec *jsontext.Decoder, w Warner, opts json.Options, text func(string), obj func(*O)) error {
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		if err == nil {
			text(tok.String())
		}
		return err
	case '{':
		var o O
		if err := json.UnmarshalDecode(dec, &o, opts); err != nil {
			return err
		}
		obj(&o)
		return nil
	case 'n':
		return dec.SkipValue()
	}
	w.Warn(WarnTypeMismatch)
	return dec.SkipValue()
}
