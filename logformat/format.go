// Package logformat reads log files. Read decodes each line or document of
// a file into the union of every format's members (document) and hands it
// to the first format that recognises it by content (never by path). Each
// format is a package of its own (logformat/<name>), given its view of the
// document, whose reader maps it onto the normalized model; a format whose
// runs span files emits fragments and registers its join with package join.
package logformat

import (
	"io"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/logformat/claudecode"
	"github.com/agentstat/agentstat/logformat/codex"
	"github.com/agentstat/agentstat/logformat/debugbundle"
	"github.com/agentstat/agentstat/logformat/gemini"
	"github.com/agentstat/agentstat/logformat/jsonscan"
	"github.com/agentstat/agentstat/logformat/otel"
	"github.com/agentstat/agentstat/logformat/planagent"
	"github.com/agentstat/agentstat/logformat/planexec"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/logformat/session"
	"github.com/agentstat/agentstat/logformat/structmsg"
)

// Format describes one input format.
type Format struct {
	Name      string // the key used in reports (docs/metrics.md)
	Title     string // what one file holds
	Signature string // how a document is recognised, for `agentstat formats`
	match     func(d *document) bool
	read      func(d *document, c *reader.Ctx)
}

// registry is in detection precedence: the first format whose signature
// matches a document reads it, given its view of the document (document.go).
var registry = []*Format{
	packaged(debugbundle.Format, bundleView),
	packaged(otel.Format, otelView),
	packaged(claudecode.Format, claudeView),
	packaged(codex.Format, codexView),
	packaged(gemini.Format, geminiView),
	packaged(structmsg.Format, structView),
	packaged(planagent.Format, planagentView),
	packaged(planexec.Format, planexecView),
	packaged(session.Format, sessionView),
}

// packaged adapts a format package's Format to the union: view is
// what its reader is given of a document.
func packaged[D any](f reader.Format[D], view func(*document) D) *Format {
	return &Format{
		Name: f.Name, Title: f.Title, Signature: f.Signature,
		match: func(d *document) bool { return f.Match(view(d)) },
		read:  func(d *document, c *reader.Ctx) { f.Read(view(d), c) },
	}
}

// All lists the supported formats in detection precedence.
func All() []Format {
	out := make([]Format, len(registry))
	for i, f := range registry {
		out[i] = *f
	}
	return out
}

// Skip reasons: every seen file that feeds no run is skipped with exactly one.
const (
	ReasonEmpty       = "empty"
	ReasonInvalidJSON = "invalid JSON"
	ReasonTruncated   = "truncated JSON"
	ReasonNotUTF8     = "not UTF-8"
	ReasonUnknown     = "unknown format"
	ReasonNoRuns      = "no runs"
	ReasonOrphan      = "orphan"
	ReasonTooLarge    = "too large"
	ReasonUnreadable  = "unreadable"
	ReasonDuplicate   = "duplicate" // the same file as one read already: a hard link, or roots that overlap
)

// Reasons lists every skip reason in the order docs/metrics.md documents them
// (a test holds the two, and the constants above, equal).
var Reasons = []string{ReasonEmpty, ReasonInvalidJSON, ReasonTruncated, ReasonNotUTF8, ReasonUnknown, ReasonNoRuns, ReasonOrphan, ReasonTooLarge, ReasonUnreadable, ReasonDuplicate}

// Warner counts warnings by kind.
type Warner = jsonscan.Warner

// Options tune how files are read.
type Options struct {
	Location    *time.Location    // zone of timestamps written without one
	LineWorkers int               // decode a JSONL file's lines on this many goroutines (worth it for long files)
	Spill       *recordspill.File // where Claude Code records wait for their join (nil: in memory)
	// Reread gives the file again from its start. With it, a document is
	// first read by a faster path that can give up (readRawDocument).
	Reread func() (io.Reader, error)

	streamClamp bool // clamp JSON Lines as one stream, not line by line (tests compare the two)
}

// SkipError says why a file yields nothing.
type SkipError struct {
	Reason string
	Detail string
}

func (e *SkipError) Error() string {
	if e.Detail == "" {
		return e.Reason
	}
	return e.Reason + ": " + e.Detail
}

func skip(reason, detail string) error { return &SkipError{Reason: reason, Detail: detail} }
