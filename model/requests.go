package model

import (
	"encoding/binary"
	"errors"
	"time"
)

// Requests are a run's model requests. They travel through the run-details
// spill and partial files as one compact blob (GobEncode) rather than gob's
// reflective form: a long session's 100,000 requests, each with a
// time.Time gob marshals one by one, would take longer than its calls.
type Requests []Request

// GobEncode writes each request as its model (an index into the models
// written before it, or a new name), its time (Unix seconds and
// nanoseconds, +1 so that 0 is no time) and its token kinds, as varints.
func (rs Requests) GobEncode() ([]byte, error) {
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(rs)))
	seen := map[string]uint64{}
	for i := range rs {
		q := &rs[i]
		if k, ok := seen[q.Model]; ok {
			b = binary.AppendUvarint(b, k)
		} else {
			seen[q.Model] = uint64(len(seen)) + 1
			b = binary.AppendUvarint(b, 0)
			b = binary.AppendUvarint(b, uint64(len(q.Model)))
			b = append(b, q.Model...)
		}
		if q.At.IsZero() {
			b = append(b, 0)
		} else {
			b = append(b, 1)
			b = binary.AppendVarint(b, q.At.Unix())
			b = binary.AppendUvarint(b, uint64(q.At.Nanosecond()))
		}
		t := &q.Tokens
		for _, v := range [...]int64{t.Input, t.Output, t.CacheRead, t.CacheCreation, t.Unspecified, t.CacheCreation1h} {
			b = binary.AppendVarint(b, v)
		}
	}
	return b, nil
}

var errRequests = errors.New("requests: malformed")

// GobDecode reads what GobEncode wrote; times come back in UTC.
func (rs *Requests) GobDecode(b []byte) error {
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	v := func() int64 {
		x, n := binary.Varint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return x
	}
	n := uv()
	if n > uint64(len(b)) { // every request takes a byte or more
		return errRequests
	}
	if n == 0 {
		*rs = nil
		return nil
	}
	out := make(Requests, n)
	var models []string
	for i := range out {
		q := &out[i]
		switch k := uv(); {
		case k == 0:
			l := uv()
			if l > uint64(len(b)) {
				return errRequests
			}
			q.Model = string(b[:l])
			b = b[l:]
			models = append(models, q.Model)
		case k <= uint64(len(models)):
			q.Model = models[k-1]
		default:
			return errRequests
		}
		if len(b) == 0 {
			return errRequests
		}
		timed := b[0] == 1
		b = b[1:]
		if timed {
			sec := v()
			q.At = time.Unix(sec, int64(uv())).UTC()
		}
		t := &q.Tokens
		for _, p := range [...]*int64{&t.Input, &t.Output, &t.CacheRead, &t.CacheCreation, &t.Unspecified, &t.CacheCreation1h} {
			*p = v()
		}
		if b == nil {
			return errRequests
		}
	}
	if len(b) != 0 {
		return errRequests
	}
	*rs = out
	return nil
}
