package render

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/agentstat/agentstat/metrics"
	"github.com/agentstat/agentstat/model"
)

// Run pages: runs/<page>.html, one per run, from the details spill.

// maxPageCalls bounds the calls a run page lists (and, past it, the failed
// ones): a run of 150,000 calls would otherwise be a 30 MB page no browser sorts.
const maxPageCalls = 2000

type callView struct {
	N                                                                  int
	Name, Outcome, Agent, Started, StartedSort, Duration, DurationSort string
	Input, Error                                                       string
}

type stepView struct {
	N                             int
	Name, Status, Agent, Duration string
}

type evalView struct{ Phase, Task, Tool, Score, Valid string }

// runPages writes runs/<page>.html for every run, streaming the details the
// analysis spilled to disk.
func (h *htmlWriter) runPages() error {
	if h.r.Details == nil {
		return nil
	}
	// Pages are independent files: render them on every core.
	runs := make(chan *model.Run, 64)
	errs := make(chan error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for r := range runs {
				if first == nil {
					first = h.runPage(r)
				}
			}
			errs <- first
		}()
	}
	var readErr error
	for pr, err := range h.r.Details.Pages(pageWholeCalls) {
		if err != nil {
			readErr = fmt.Errorf("run details: %w", err)
			break
		}
		if pr.Read == nil {
			runs <- pr.Run
			continue
		}
		// A long run's page is made here, its calls read a chunk at a
		// time, while the workers go on with the runs before it.
		if err := h.runPageOf(pr.Run, pr.Calls, pr.Read); err != nil {
			readErr = err
			break
		}
	}
	close(runs)
	wg.Wait()
	close(errs)
	for err := range errs {
		readErr = cmp.Or(readErr, err)
	}
	return readErr
}

// pageWholeCalls is how many calls a run may have to be read whole for its
// page, on a worker (a variable for tests); a longer one's are streamed.
var pageWholeCalls = 1 << 14

func (h *htmlWriter) runPage(r *model.Run) error {
	calls := r.ToolCalls
	return h.runPageOf(r, len(calls), func(use func([]model.ToolCall) bool) error {
		use(calls)
		return nil
	})
}

// runNav is the links of r's page.
func (h *htmlWriter) runNav(r *model.Run) runNav {
	i, ok := h.r.Runs.Find(r.Source, r.ID, metrics.RunPage(r))
	if !ok || h.rank == nil {
		return runNav{}
	}
	row := h.r.Runs.At(i)
	label := h.projectLabel(row.Project)
	n := runNav{ListHref: "../" + h.listLink("project", label), ProjectLabel: label}
	if p, ok := h.projectPages[row.Project]; ok {
		n.ProjectHref = "../" + p
	}
	name := func(k int32) (string, string) {
		o := h.r.Runs.At(int(h.newest[k]))
		return o.Page, clipText(cmp.Or(strings.TrimSpace(o.Title), o.ID), 60)
	}
	if k := h.rank[i]; k+1 < int32(len(h.newest)) {
		n.EarlierHref, n.EarlierName = name(k + 1)
	}
	if k := h.rank[i]; k > 0 {
		n.LaterHref, n.LaterName = name(k - 1)
	}
	return n
}

// runPageView is what a run page shows, every text as the page prints it.
type runPageView struct {
	Name, ID, Status, Format, Source, Agent, Model  string
	Started, Ended, Duration, CallCount, ErrorCount string
	Tokens, Cost, Window, Request                   string
	Summary                                         template.HTML
	Timeline                                        *chartView
	Calls                                           []callView
	CallsNote                                       string
	Steps                                           []stepView
	Quality                                         []evalView
	Refs                                            []model.ContextRef
	Subagents                                       []subagentView
	Nav                                             runNav
}

// runNav is a run page's links: its project's runs and page, and the runs
// started just before and after it. Every href is a plain path and a
// fragment of url.Values, which html/template would write as it is escaped.
type runNav struct {
	ListHref, ProjectLabel, ProjectHref string
	EarlierHref, EarlierName            string
	LaterHref, LaterName                string
}

type subagentView struct{ Type, Calls, Tokens, Requests, Cost string }

// runPageOf writes the page of r, whose n calls read hands over in order,
// in chunks: only what the page shows of them is kept.
func (h *htmlWriter) runPageOf(r *model.Run, n int, read func(use func([]model.ToolCall) bool) error) error {
	name := r.Title
	if strings.TrimSpace(name) == "" {
		name = r.ID
	}
	data := runPageView{Name: clipText(name, 300), ID: r.ID, Status: string(r.Status), Format: r.Format, Source: r.Source, Agent: r.Agent, Model: r.Model,
		Request: r.Request, Refs: r.Context.Refs, Nav: h.runNav(r)}
	for _, s := range r.Context.Subagents {
		v := subagentView{Type: s.Type, Calls: Count(s.Calls), Tokens: Count(s.Tokens), Requests: NA, Cost: NA} // n/a: a log that does not tell them
		if len(s.Requests) > 0 {
			v.Requests = Count(int64(len(s.Requests)))
		}
		if usd := metrics.RequestsCost(h.prices(), s.Requests); usd != nil {
			v.Cost = USD(usd)
		}
		data.Subagents = append(data.Subagents, v)
	}
	data.Started, _ = h.when(r.Started)
	data.Ended, _ = h.when(r.Ended)
	if r.HasDuration {
		data.Duration = Millis(&r.DurationMS)
	} else {
		data.Duration = NA
	}
	if t := r.Tokens.Total(); t > 0 {
		data.Tokens = fmt.Sprintf("%s (input %s, output %s, cache read %s, cache creation %s, unspecified %s)", Count(t),
			Count(r.Tokens.Input), Count(r.Tokens.Output), Count(r.Tokens.CacheRead), Count(r.Tokens.CacheCreation), Count(r.Tokens.Unspecified))
	}
	data.Cost, data.Window = runUsage(h.prices(), r)
	if strings.TrimSpace(r.Summary) != "" {
		var b bytes.Buffer
		if err := markdown.Convert([]byte(r.Summary), &b); err == nil {
			data.Summary = template.HTML(b.String()) // goldmark without WithUnsafe: raw HTML omitted, unsafe links dropped
		}
	}
	tl := timelines.Get().(*timeline)
	defer timelines.Put(tl)
	tl.reset()
	i, errs, shownErrs, listed := 0, 0, 0, 0
	err := read(func(chunk []model.ToolCall) bool {
		for k := range chunk {
			c := &chunk[k]
			tl.add(c)
			if c.Outcome == model.OutcomeError {
				errs++
			}
			// A page stays readable and sortable: past the cap, only failed calls are listed.
			if i++; i > maxPageCalls && (c.Outcome != model.OutcomeError || shownErrs >= maxPageCalls) {
				continue
			}
			if c.Outcome == model.OutcomeError {
				shownErrs++
			}
			v := callView{N: i, Name: c.Name, Input: c.Input, Outcome: c.Outcome.String(), Agent: c.Agent, Error: c.Error, Duration: NA}
			v.Started, v.StartedSort = h.when(c.Started)
			if c.HasDuration {
				v.Duration, v.DurationSort = Millis(&c.DurationMS), strconv.FormatFloat(c.DurationMS, 'g', -1, 64)
			}
			data.Calls = append(data.Calls, v)
			listed++
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("run details: %w", err)
	}
	if c, ok := tl.chart(); ok {
		data.Timeline = &c
	}
	data.CallCount, data.ErrorCount = Count(int64(n)), Count(int64(errs))
	if listed < n {
		data.CallsNote = fmt.Sprintf("Listed: %s of %s calls, the first %s and the failed ones after them (up to %s). Every call is in report.xlsx (Tool calls) and in the tables of agentstat export.",
			Count(int64(listed)), Count(int64(n)), Count(maxPageCalls), Count(maxPageCalls))
	}
	for i, s := range r.Steps {
		v := stepView{N: i + 1, Name: s.Name, Status: string(s.Status), Agent: s.Agent, Duration: NA}
		if s.HasDuration {
			v.Duration = Millis(&s.DurationMS)
		}
		data.Steps = append(data.Steps, v)
	}
	for _, e := range r.Quality {
		v := evalView{Phase: e.Phase, Task: e.Task, Tool: e.Tool, Score: NA, Valid: "unknown"}
		if e.HasScore {
			v.Score = strconv.FormatFloat(e.Score, 'f', -1, 64)
		}
		switch e.Valid {
		case model.TriTrue:
			v.Valid = "yes"
		case model.TriFalse:
			v.Valid = "no"
		}
		data.Quality = append(data.Quality, v)
	}
	file, title := "runs/"+metrics.RunPage(r), clipText(name, 120)+" · agentstat"
	return h.execute(file, "run.html", runPageData{h.page(title, "../assets/", file, data.Timeline != nil), &data})
}

// runPageData is what run.html takes.
type runPageData struct {
	Page page
	Run  *runPageView
}
