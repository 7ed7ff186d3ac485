package model

import (
	"reflect"
	"testing"
	"time"
)

func TestRequestsRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 1, 23, 50, 5, 123456789, time.UTC)
	for _, rs := range []Requests{
		nil,
		{{}},
		{{Model: "claude-opus-4-6", At: at, Tokens: Tokens{Input: 12, Output: 300, CacheRead: 18000, CacheCreation: 6000, CacheCreation1h: 6000}},
			{Model: "claude-haiku-4-5", At: at.Add(-time.Hour), Tokens: Tokens{Input: 3, Output: 80}},
			{Model: "claude-opus-4-6", Tokens: Tokens{Unspecified: 7, Input: -1}},
			{Model: "", At: time.Unix(-5, 1).UTC()}},
	} {
		b, err := rs.GobEncode()
		if err != nil {
			t.Fatal(err)
		}
		var got Requests
		if err := got.GobDecode(b); err != nil || !reflect.DeepEqual(got, rs) {
			t.Errorf("%+v came back as %+v (%v)", rs, got, err)
		}
		for n := range len(b) { // every cut is refused, never misread
			var cut Requests
			if cut.GobDecode(b[:n]) == nil && n > 0 && len(rs) > 0 {
				t.Errorf("%d of %d bytes decoded", n, len(b))
			}
		}
	}
}

func FuzzRequests(f *testing.F) {
	b, _ := Requests{{Model: "m", At: time.Unix(1, 2).UTC(), Tokens: Tokens{Input: 1}}, {Model: "m"}}.GobEncode()
	f.Add(b)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		var rs Requests
		if rs.GobDecode(b) != nil {
			return
		}
		again, _ := rs.GobEncode()
		var back Requests
		if err := back.GobDecode(again); err != nil || !reflect.DeepEqual(back, rs) {
			t.Fatalf("%x decoded to %+v, which does not round-trip: %v", b, rs, err)
		}
	})
}
