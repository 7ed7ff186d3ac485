package metrics

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

// HistoryEntry is one report run's headline figures: one line of
// history.jsonl, holding each figure of Headline that has a History key.
type HistoryEntry struct {
	Schema      string
	GeneratedAt string
	Figures     map[string]*float64 // by Figure.History
}

// Value is the figure kept under key, nil when it had no data.
func (e HistoryEntry) Value(key string) *float64 { return e.Figures[key] }

// EntryOf is the history entry of a summary.
func EntryOf(s *Summary) HistoryEntry {
	e := HistoryEntry{Schema: HistorySchema, GeneratedAt: s.GeneratedAt, Figures: map[string]*float64{}}
	for _, f := range Headline {
		if f.History != "" {
			e.Figures[f.History] = f.Get(s)
		}
	}
	return e
}

// MarshalJSON writes the schema, the time, then the figures in Headline's order.
func (e HistoryEntry) MarshalJSON() ([]byte, error) {
	b := []byte(`{"schema":`)
	b, _ = appendJSON(b, e.Schema)
	b = append(b, `,"generated_at":`...)
	b, _ = appendJSON(b, e.GeneratedAt)
	for _, f := range Headline {
		if f.History == "" {
			continue
		}
		b = append(b, ',')
		b, _ = appendJSON(b, f.History)
		b = append(b, ':')
		var err error
		if b, err = appendJSON(b, e.Figures[f.History]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads an entry; a count it lacks reads as 0, any other
// figure as no data.
func (e *HistoryEntry) UnmarshalJSON(b []byte) error {
	var raw struct {
		Schema      string `json:"schema"`
		GeneratedAt string `json:"generated_at"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	var figures map[string]json.RawMessage
	if err := json.Unmarshal(b, &figures); err != nil {
		return err
	}
	*e = HistoryEntry{Schema: raw.Schema, GeneratedAt: raw.GeneratedAt, Figures: map[string]*float64{}}
	for _, f := range Headline {
		if f.History == "" {
			continue
		}
		var v *float64
		if text, ok := figures[f.History]; ok {
			if err := json.Unmarshal(text, &v); err != nil {
				return fmt.Errorf("%s: %w", f.History, err)
			}
		}
		if v == nil && f.Kind == "count" {
			v = ptr(0.0)
		}
		e.Figures[f.History] = v
	}
	return nil
}

func appendJSON(b []byte, v any) ([]byte, error) {
	j, err := json.Marshal(v)
	return append(b, j...), err
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
