package logformat

import (
	"os"
	"path/filepath"
)

// corpusDir is ../shared/corpus: real logs from other projects, beside the
// repository in CI and absent from a fresh clone.
var corpusDir = filepath.Join("..", "..", "shared", "corpus")

// atLeast is how many inputs a test that also reads the corpus must find:
// withCorpus where the corpus is, without (what testdata and the synthetic
// logs give) where it is not, so that a missing corpus is not a failure and
// a corpus that was not read is one.
func atLeast(withCorpus, without int) int {
	if _, err := os.Stat(corpusDir); err == nil {
		return withCorpus
	}
	return without
}
