package logformat

import (
	"path/filepath"
)

// corpusDir is ../shared/corpus: real logs from other projects, beside the
// repository in CI and absent from a fresh clone.
var corpusDir = filepath.Join("..", "..", "shared", "corpus")
