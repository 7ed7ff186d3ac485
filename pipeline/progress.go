package pipeline

import "sync/atomic"

// Progress counts what a run has done so far, for a progress line; every
// field may be read while the run goes on.
type Progress struct {
	Found atomic.Int64 // files discovery has handed to the readers
	Done  atomic.Int64 // files read (parsed or skipped)
	Bytes atomic.Int64 // bytes of the files read, as on disk
}
