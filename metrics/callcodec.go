package metrics

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/agentstat/agentstat/model"
)

// The run details spill holds a chunk of tool calls as one gob []byte in
// this layout rather than as gob's []model.ToolCall: gob's reflective
// encoding of each field of 300,000 calls, written once and read back by the
// workbook and the run pages each, would take ~0.5 s of a full report's CPU.
// Per call: a flags byte, the outcome, the four strings (uvarint length,
// bytes), then what the flags say is there: the start and end (each
// time.Time's own binary form, after its length byte) and the duration and
// think time (IEEE 754 bits, little-endian). A zero field is left out, as
// gob leaves it out, and decodes as the zero value.
const (
	callStarted = 1 << iota
	callEnded
	callDuration // DurationMS ≠ 0
	callHasDuration
	callThink // ThinkMS ≠ 0
	callHasThink
)

// appendCalls appends calls in the spill's layout.
func appendCalls(dst []byte, calls []model.ToolCall) []byte {
	for i := range calls {
		c := &calls[i]
		var flags byte
		set := func(bit byte, on bool) {
			if on {
				flags |= bit
			}
		}
		set(callStarted, !c.Started.IsZero())
		set(callEnded, !c.Ended.IsZero())
		set(callDuration, c.DurationMS != 0)
		set(callHasDuration, c.HasDuration)
		set(callThink, c.ThinkMS != 0)
		set(callHasThink, c.HasThink)
		dst = append(dst, flags)
		dst = binary.AppendVarint(dst, int64(c.Outcome))
		for _, s := range [...]string{c.Name, c.Category, c.Agent, c.Error, c.Input} {
			dst = binary.AppendUvarint(dst, uint64(len(s)))
			dst = append(dst, s...)
		}
		for _, t := range [...]struct {
			bit byte
			t   time.Time
		}{{callStarted, c.Started}, {callEnded, c.Ended}} {
			if flags&t.bit != 0 {
				at := len(dst)
				dst = append(dst, 0)
				b, err := t.t.AppendBinary(dst)
				if err != nil { // a zone Go's binary form cannot hold (ParseTimestamp gives none): the same instant in UTC
					b, _ = t.t.UTC().AppendBinary(dst)
				}
				dst = b
				dst[at] = byte(len(dst) - at - 1)
			}
		}
		if flags&callDuration != 0 {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(c.DurationMS))
		}
		if flags&callThink != 0 {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(c.ThinkMS))
		}
	}
	return dst
}

var errCorruptCalls = errors.New("corrupt run details")

// callReader decodes chunks of calls. Names, categories and agents repeat
// from call to call and are made a string once.
type callReader struct {
	names map[string]string
}

// decode appends the calls in b to dst.
func (r *callReader) decode(dst []model.ToolCall, b []byte) ([]model.ToolCall, error) {
	if r.names == nil {
		r.names = map[string]string{}
	}
	for len(b) > 0 {
		var c model.ToolCall
		flags := b[0]
		outcome, n := binary.Varint(b[1:])
		if n <= 0 || outcome < math.MinInt8 || outcome > math.MaxInt8 {
			return dst, errCorruptCalls
		}
		c.Outcome, b = model.Outcome(outcome), b[1+n:]
		for i, s := range [...]*string{&c.Name, &c.Category, &c.Agent, &c.Error, &c.Input} {
			size, n := binary.Uvarint(b)
			if n <= 0 || size > uint64(len(b)-n) {
				return dst, errCorruptCalls
			}
			text := b[n : n+int(size)]
			if i < 3 {
				v, ok := r.names[string(text)]
				if !ok {
					v = string(text)
					if len(r.names) < 1<<16 {
						r.names[v] = v
					}
				}
				*s = v
			} else {
				*s = string(text)
			}
			b = b[n+int(size):]
		}
		for _, t := range [...]struct {
			bit byte
			t   *time.Time
		}{{callStarted, &c.Started}, {callEnded, &c.Ended}} {
			if flags&t.bit == 0 {
				continue
			}
			if len(b) == 0 || int(b[0]) >= len(b) {
				return dst, errCorruptCalls
			}
			if err := t.t.UnmarshalBinary(b[1 : 1+int(b[0])]); err != nil {
				return dst, errCorruptCalls
			}
			b = b[1+int(b[0]):]
		}
		for _, f := range [...]struct {
			bit byte
			f   *float64
		}{{callDuration, &c.DurationMS}, {callThink, &c.ThinkMS}} {
			if flags&f.bit == 0 {
				continue
			}
			if len(b) < 8 {
				return dst, errCorruptCalls
			}
			*f.f, b = math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:]
		}
		c.HasDuration, c.HasThink = flags&callHasDuration != 0, flags&callHasThink != 0
		dst = append(dst, c)
	}
	return dst, nil
}
