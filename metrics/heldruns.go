package metrics

import (
	"bufio"
	"encoding/gob"
	"errors"
	"io"

	"github.com/agentstat/agentstat/internal/tempfile"
	"github.com/agentstat/agentstat/model"
)

// heldRuns are a file's runs until the file is read to its end: a file
// counts whole or not at all, so none is folded before. The first
// heldInMemory stay in memory; the rest are written to a scratch file as
// they come and read back one at a time, so that a file of a million small
// sessions holds one run at a time. Without a writable temporary directory
// they stay in memory.
type heldRuns struct {
	runs   []*model.Run
	parts  []*model.CallParts // of each run in runs: its calls, when the reader makes them as taken
	file   *tempfile.File
	buf    *bufio.Writer
	enc    *gob.Encoder
	n      int   // runs on file
	noFile bool  // no scratch file could be made: every run stays in memory
	err    error // writing a run to the file: the file's runs cannot all be folded
}

// heldInMemory is how many of a file's runs stay in memory (a variable for tests).
var heldInMemory = 1024

func (h *heldRuns) add(r *model.Run, parts *model.CallParts) {
	if len(h.runs) < heldInMemory || h.noFile {
		h.runs, h.parts = append(h.runs, r), append(h.parts, parts)
		return
	}
	if h.file == nil {
		f, err := tempfile.New("agentstat-runs-*.gob")
		if err != nil {
			h.noFile = true
			h.runs, h.parts = append(h.runs, r), append(h.parts, parts)
			return
		}
		h.file, h.buf = f, bufio.NewWriterSize(f, 256<<10)
		h.enc = gob.NewEncoder(h.buf)
	}
	if parts != nil {
		r.ToolCalls = parts.All() // a run on file takes its calls with it
	}
	if h.err == nil {
		h.err = h.enc.Encode(r)
	}
	h.n++
}

// len is how many runs are held.
func (h *heldRuns) len() int { return len(h.runs) + h.n }

// each hands over every run in the order added. An error writing the
// runs is returned before any is handed over; one reading them back (a
// fault of the disk) after those before it were.
func (h *heldRuns) each(use func(i int, r *model.Run, parts *model.CallParts)) error {
	if h.n > 0 {
		if h.err == nil {
			h.err = h.buf.Flush()
		}
		if h.err != nil {
			return h.err
		}
	}
	for i, r := range h.runs {
		use(i, r, h.parts[i])
		h.runs[i] = nil // folded: let it go
	}
	if h.n == 0 {
		return nil
	}
	dec := gob.NewDecoder(bufio.NewReaderSize(h.file.Section(), 256<<10))
	for i := range h.n {
		r := new(model.Run)
		if err := dec.Decode(r); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		use(len(h.runs)+i, r, nil)
	}
	return nil
}

// drain makes the calls no one took (their warnings count all the same),
// and removes the scratch file.
func (h *heldRuns) drain() {
	for _, p := range h.parts {
		if p != nil {
			p.Drain()
		}
	}
	if h.file != nil {
		h.file.Close()
	}
}
