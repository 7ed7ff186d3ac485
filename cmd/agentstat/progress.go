package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dustin/go-humanize"
	"golang.org/x/term"

	"github.com/agentstat/agentstat/pipeline"
)

// startProgress shows how far reading has got on one stderr line, redrawn
// in place, when stderr is a terminal (never into files, pipes or CI logs).
// stop clears the line; it must be called before anything else is printed.
func startProgress(stderr io.Writer, quiet bool) (p *pipeline.Progress, stop func()) {
	f, ok := stderr.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) || os.Getenv("TERM") == "dumb" {
		return nil, func() {}
	}
	p = &pipeline.Progress{}
	quit, done := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				fmt.Fprint(f, "\r\033[K")
				return
			case <-tick.C:
				fmt.Fprint(f, "\r\033[K"+progressText(p.Done.Load(), p.Found.Load(), p.Bytes.Load(), time.Since(start)))
			}
		}
	}()
	return p, func() { close(quit); <-done }
}

// progressText is the progress line: files read of those found so far, bytes, rate.
func progressText(done, found, bytes int64, elapsed time.Duration) string {
	rate := ""
	if s := elapsed.Seconds(); s > 0.5 {
		rate = " · " + humanize.Bytes(uint64(float64(bytes)/s)) + "/s"
	}
	return fmt.Sprintf("agentstat: reading %s of %s files · %s%s", humanize.Comma(done), humanize.Comma(found), humanize.Bytes(uint64(bytes)), rate)
}
