//go:build !amd64 || purego

package logformat

// longStrings is false where stopWindow has no vector instructions: the
// eight-bytes-at-a-time scan is as fast.
var longStrings = false

func stopWindow(b []byte) (off int, stops, highs uint64, before bool) {
	panic("stopWindow without AVX2")
}
