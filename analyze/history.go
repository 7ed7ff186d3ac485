package analyze

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// HistorySchema names the format of a history.jsonl line.
const HistorySchema = "agentstat.history/v1"

// DefaultHistoryLimit is how many report runs a history keeps (--history-limit).
const DefaultHistoryLimit = 90

// HistoryEntry is one report run's headline figures: one line of history.jsonl.
type HistoryEntry struct {
	Schema       string   `json:"schema"`
	GeneratedAt  string   `json:"generated_at"`
	Runs         int64    `json:"runs"`
	SuccessRate  *float64 `json:"success_rate"`
	ToolCalls    int64    `json:"tool_calls"`
	ErrorRate    *float64 `json:"error_rate"`
	RunP95MS     *float64 `json:"run_p95_ms"`
	CallP95MS    *float64 `json:"tool_call_p95_ms"`
	QualityMean  *float64 `json:"quality_mean"`
	Tokens       int64    `json:"tokens"`
	FilesSkipped int64    `json:"files_skipped"`
}

// EntryOf is the history entry of a summary.
func EntryOf(s *Summary) HistoryEntry {
	return HistoryEntry{Schema: HistorySchema, GeneratedAt: s.GeneratedAt, Runs: s.Runs.Total, SuccessRate: s.Runs.SuccessRate,
		ToolCalls: s.ToolCalls.Total, ErrorRate: s.ToolCalls.ErrorRate, RunP95MS: s.Runs.DurationMS.P95,
		CallP95MS: s.ToolCalls.DurationMS.P95, QualityMean: s.Quality.Mean, Tokens: s.Context.Tokens.Total, FilesSkipped: s.Inputs.FilesSkipped}
}

// ReadHistory reads a history file. A missing file is an empty history; a
// line that is not a history entry is skipped and counted, never fatal.
func ReadHistory(path string) (entries []HistoryEntry, skipped int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("history %s: %w", path, err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && len(line) <= 1<<20 {
			var e HistoryEntry
			if jerr := json.Unmarshal(line, &e); jerr != nil || e.Schema != HistorySchema || e.GeneratedAt == "" {
				if len(bytesTrim(line)) > 0 {
					skipped++
				}
			} else {
				entries = append(entries, e)
			}
		} else if len(line) > 1<<20 {
			skipped++
		}
		if err == io.EOF {
			return entries, skipped, nil
		}
		if err != nil {
			return entries, skipped, fmt.Errorf("history %s: %w", path, err)
		}
	}
}

func bytesTrim(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// AppendHistory adds an entry and keeps the last limit entries.
func AppendHistory(entries []HistoryEntry, e HistoryEntry, limit int) []HistoryEntry {
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	out := append(append([]HistoryEntry(nil), entries...), e)
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out
}

// WriteHistory writes entries as JSON Lines.
func WriteHistory(w io.Writer, entries []HistoryEntry) error {
	enc := json.NewEncoder(w)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}
