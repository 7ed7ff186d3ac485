package claudecode

import (
	"bufio"
	"bytes"
	"io"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/reader"
)

// In the binary logformat indexes the plans once every package's are made;
// this test's binary has no logformat.
func init() { jsonscan.Index() }

// line is what this package reads of a transcript line: logformat decodes
// a line into the union of every format's members, of which these are
// Claude Code's view.
type line struct {
	reader.Shared
	Fields
	Message *reader.Message `json:"message"`
}

// readLines reads a transcript as logformat does (through the reflective
// decoder, each line the package's signature accepts), into what em keeps,
// its records waiting on spill (nil: in memory).
func readLines(r io.Reader, name string, loc *time.Location, spill *recordspill.File, em reader.Emitter) error {
	if loc == nil {
		loc = time.UTC
	}
	c := reader.NewCtx(name, loc, spill, em)
	br := bufio.NewReader(r)
	for {
		text, err := br.ReadBytes('\n')
		if text = bytes.TrimSpace(text); len(text) > 0 {
			var l line
			if json.Unmarshal(text, &l, jsonscan.DecodeOptions(c)) != nil {
				c.Warn(reader.WarnInvalidLine)
			} else if d := (Doc{Shared: &l.Shared, Fields: &l.Fields, Message: l.Message}); Format.Match(d) {
				Format.Read(d, c)
			}
			c.Ord++
		}
		if err == io.EOF {
			c.End()
			return nil
		}
		if err != nil {
			return err
		}
	}
}
