package logformat

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"unsafe"

	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/go-json-experiment/json"
)

// A debug bundle is one document, most of it an events array whose
// metadata payloads jsontext skips token by token at 400-500 MB/s.
// readRawDocument reads a large document as readValues does, but a member
// whose type streams itself (jsonscan.Streamed: a bundle's events) reads itself
// straight from the bytes with the raw scanner (jsonscan.Stream), over a window
// that slides along the stream; every other member is decoded by the
// general decoder as it is. Like decodeLineRaw it accepts
// only what it is sure of, and it emits nothing until the document has
// ended: when in doubt it returns errRawGaveUp, with nothing emitted, and
// the caller reads the file again through the token path (Options.Reread).

var errRawGaveUp = errors.New("the raw document path gave up")

// documentPlan reads a whole line or document.
var documentPlan = jsonscan.PlanOf(reflect.TypeFor[document]())

// init indexes the names of every plan, which the package's variables
// have made by now.
func init() { jsonscan.Index() }

// maxRawMember is the longest member other than a streamed one.
const maxRawMember = 1 << 20

// readRawDocument reads a file holding one JSON object, as readValues
// would; errRawGaveUp means it read nothing it kept.
func readRawDocument(in io.Reader, c *reader.Ctx) error {
	return rawDocument(jsonscan.NewStream(in, false), c)
}

// readRawAsIs is readRawDocument over a document's bytes as they are, not
// clamped: it gives up on anything the clamp would change (a string longer
// than maxString or a number longer than maxBareToken; the scanner refuses
// surrogate escapes, NaN and Infinity), so that what it reads is what it
// would have read through the clamp.
func readRawAsIs(in io.Reader, c *reader.Ctx) error {
	return rawDocument(jsonscan.NewStream(in, true), c)
}

func rawDocument(r *jsonscan.Stream, c *reader.Ctx) error {
	r.Env = c
	var (
		d        document
		w        jsonscan.WarnList
		member   []byte
		streamed []string
	)
	opts := jsonscan.DecodeOptions(&w)
	ok := r.Members(false, func(key string) bool {
		f := documentPlan.Field(key)
		if f == nil { // the general decoder skips it too
			return r.SkipAny(0)
		}
		if f.Stream != nil {
			if slices.Contains(streamed, key) {
				return false // written twice: left to the token path
			}
			streamed = append(streamed, key)
			return f.Stream(r, unsafe.Add(unsafe.Pointer(&d), f.Off), &w)
		}
		// A long member gives up: the document is not a bundle, and the
		// general decoder would scan its bytes a second time.
		return r.SkipValue(maxRawMember, func(v []byte) bool {
			// The member alone, decoded into d as the general decoder
			// decodes it in the whole object: unmarshaling merges.
			member = append(append(append(append(member[:0], `{"`...), key...), `":`...), v...)
			member = append(member, '}')
			return json.Unmarshal(member, &d, opts) == nil
		})
	})
	// Only white space may follow: more values are readValues' to read.
	if !ok || !r.End() {
		return errRawGaveUp
	}
	for _, k := range w.Kinds {
		c.Warn(k)
	}
	return verdict(dispatch(&d, c), c)
}

// decodeLineRaw decodes line into d, reporting false when it gives up
// (d and w are then dirty).
func decodeLineRaw(line []byte, d *document, w *jsonscan.WarnList, a *reader.LineArena) bool {
	s := jsonscan.Scanner{B: line}
	if a != nil { // not a nil *LineArena in the interface
		s.Arena = a
	}
	return decodeRaw(s, d, w)
}

// decodeRaw is decodeLineRaw with s set up by the caller.
func decodeRaw(s jsonscan.Scanner, d *document, w *jsonscan.WarnList) bool {
	w.Kinds = w.Kinds[:0]
	return s.Whole(documentPlan, unsafe.Pointer(d), w)
}
