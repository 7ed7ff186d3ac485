package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Help goes to stdout with exit 0, each command with its own usage, flags
// and example: golden files, reviewed by eye (go test -run Help -update).
func TestHelpGolden(t *testing.T) {
	// formats-list is what `agentstat formats` lists: each format's title and signature.
	cases := map[string][]string{"agentstat": {"--help"}, "formats-list": {"formats"}}
	for _, c := range commands {
		cases[c.name] = []string{c.name, "--help"}
	}
	for name, args := range cases {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		golden := filepath.Join("testdata", "help", name+".txt")
		if *update {
			os.MkdirAll(filepath.Dir(golden), 0o755)
			if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if stdout != string(want) {
			os.WriteFile(golden+".got", []byte(stdout), 0o644)
			t.Errorf("%v: help differs from %s (see %s.got)", args, golden, golden)
		}
	}
	// "help COMMAND" is "COMMAND --help".
	_, viaHelp, _ := runCLI(t, "help", "check")
	_, direct, _ := runCLI(t, "check", "--help")
	if viaHelp != direct {
		t.Errorf("help check differs from check --help")
	}
}
