package logformat

import (
	"github.com/go-json-experiment/json/jsontext"
)

// Field-level helpers shared by the general decoder's tolerant types and
// the raw scanner (rawscan.go): keys matched on their bytes, objects read
// member by member.

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

// fieldKeys are the names the raw scanner's plans and objectFields match,
// interned; keyIndex holds them open-addressed on a slot made from a
// key's length and three of its bytes: every transcript line has dozens
// of keys, and hashing each whole for a map cost more than its decoding
// did. Both are made by init (rawplan.go).
var (
	fieldKeys map[string]string
	keyIndex  *[keySlots]string
)

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
