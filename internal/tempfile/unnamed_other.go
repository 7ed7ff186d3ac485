//go:build !linux

package tempfile

import (
	"errors"
	"os"
)

// openUnnamed is O_TMPFILE's, which only Linux has.
func openUnnamed(dir, pattern string) (*os.File, error) {
	return nil, errors.ErrUnsupported
}
