package metrics

import (
	"errors"
	"os"
	"time"

	"github.com/agentstat/agentstat/internal/recordspill"
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/logformat"
	"github.com/agentstat/agentstat/logformat/reader"
	"github.com/agentstat/agentstat/model"
	"github.com/agentstat/agentstat/pricing"
)

// Settings say how an accumulator folds runs; a partial carries them.
type Settings struct {
	Location    *time.Location // days, and timestamps written without a zone; nil is UTC
	Prices      *pricing.Table // nil: the built-in table
	Scope       Scope          // the runs kept
	KeepDetails bool           // spill every kept run's detail, for run pages and the workbook (Report.Details)
	KeepSecrets bool           // do not redact values that look like credentials (--no-redact)
	NoText      bool           // keep numbers and names only: no prompt, title, step name, task or error text (--no-text)
	NoIndex     bool           // no run index (Report.Runs is nil): only HTML and the workbook list runs
}

// Scope is which runs a report covers: those started in [Since, Until), of
// Project. A zero bound or an empty project leaves it open.
type Scope struct {
	Since, Until time.Time
	Project      string
}

// Keeps reports whether the scope keeps r.
func (s *Scope) Keeps(r *model.Run) bool {
	if s.Project != "" && !sameProject(ProjectOf(r), s.Project) {
		return false
	}
	if s.Since.IsZero() && s.Until.IsZero() {
		return true
	}
	if r.Started.IsZero() {
		return false
	}
	return (s.Since.IsZero() || !r.Started.Before(s.Since)) && (s.Until.IsZero() || r.Started.Before(s.Until))
}

// Settings are what a was made with.
func (a *Accumulator) Settings() Settings {
	return Settings{Location: a.loc, Prices: a.prices, Scope: a.scope, KeepDetails: a.spill != nil, KeepSecrets: a.keepSecrets, NoText: a.noText, NoIndex: a.noIndex}
}

// Worker returns an empty accumulator with a's settings for one goroutine,
// with a file of run details of its own when a keeps them; MergeWorker
// folds it back into a.
func (a *Accumulator) Worker() (*Accumulator, error) {
	s := a.Settings()
	s.KeepDetails = false
	w := NewAccumulator(s)
	if a.spill != nil {
		dw, err := a.spill.writer()
		if err != nil {
			return nil, err
		}
		w.details = dw
	}
	return w, nil
}

// MergeWorker finishes w's run details and adds everything w holds to a,
// the records it waits to join among them.
func (a *Accumulator) MergeWorker(w *Accumulator) error {
	if w.details != nil {
		if err := w.details.close(); err != nil {
			return err
		}
	}
	a.Merge(w)
	if w.waiting != nil {
		a.await(w.waiting.frags, w.waiting.pending)
	}
	return nil
}

// WaitOn hands a the spill that the records of the fragments it holds are
// on: Join reads them from it, and Join or Close removes it.
func (a *Accumulator) WaitOn(records *recordspill.File) {
	if a.waiting == nil {
		a.waiting = &waiting{}
	}
	a.waiting.records = records
}

func (a *Accumulator) await(frags []*join.Fragment, pending []string) {
	if len(frags) == 0 {
		return
	}
	if a.waiting == nil {
		a.waiting = &waiting{}
	}
	a.waiting.frags = append(a.waiting.frags, frags...)
	a.waiting.pending = append(a.waiting.pending, pending...)
}

// AddFile counts one file, whose reading read does: it hands its runs and
// fragments to the emitter it is given. A file counts whole or not at all:
// its runs are folded only once read returns, and when read fails the file
// is skipped with the reason a *logformat.SkipError gives (unreadable for
// any other error). ord is the file's place in discovery order.
func (a *Accumulator) AddFile(source string, ord int, read func(reader.PartsEmitter) error) {
	a.FilesSeen++
	em := &fileEmitter{a: a, source: source}
	err := read(em)
	defer em.runs.drain()
	var skip *logformat.SkipError
	switch {
	case errors.As(err, &skip):
		a.skip(source, skip.Reason, skip.Detail)
		return
	case err != nil:
		a.skip(source, logformat.ReasonUnreadable, errText(err))
		return
	}
	fed, folded := map[string]bool{}, false
	if err := em.runs.each(func(i int, r *model.Run, parts *model.CallParts) {
		folded = true
		r.Seq, r.FileOrd = i, ord
		if !a.scope.Keeps(r) {
			a.RunsFiltered++
			return
		}
		fed[r.Format] = true
		a.addKept(r, parts, false)
	}); err != nil {
		if !folded { // none counts: the file is skipped whole
			a.skip(source, logformat.ReasonUnreadable, "its runs could not be held until it was read: "+errText(err))
			return
		}
		a.warnIn(reader.WarnRunsLost, source) // the disk failed reading back what it had written: the runs after are lost
	}
	switch {
	case len(fed) > 0:
		a.FilesParsed++
		for f := range fed {
			a.FilesByFormat[f]++
		}
		a.await(em.frags, nil)
	case len(em.frags) > 0:
		a.await(em.frags, []string{source}) // the join decides what it counts as
	case em.runs.len() > 0:
		a.FilesFiltered++
	default:
		a.skip(source, logformat.ReasonNoRuns, "")
	}
}

// fileEmitter holds one file's runs and fragments until the file was read
// to its end.
type fileEmitter struct {
	a      *Accumulator
	source string
	runs   heldRuns
	frags  []*join.Fragment
}

func (e *fileEmitter) Warn(kind string)          { e.a.warnIn(kind, e.source) }
func (e *fileEmitter) Run(r *model.Run)          { e.RunParts(r, nil) }
func (e *fileEmitter) Fragment(f *join.Fragment) { e.frags = append(e.frags, f) }

func (e *fileEmitter) RunParts(r *model.Run, parts *model.CallParts) { e.runs.add(r, parts) }

// errText is an error's text without the path, which the report shows beside it.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}
