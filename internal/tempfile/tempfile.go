// Package tempfile makes scratch files that leave nothing behind, even when
// the process is killed: where the system allows it (Unix), a file is
// unlinked as soon as it is created and lives on through its descriptor.
package tempfile

import (
	"errors"
	"io"
	"math"
	"os"
)

// File is an open scratch file in the temporary directory.
type File struct {
	*os.File
	unlinked bool // no name left to remove
}

// New creates a scratch file named from pattern (as os.CreateTemp) and
// unlinks it at once where the system keeps an open unlinked file (Unix);
// elsewhere Close removes it. On Linux the file never has a name at all,
// where the file system allows (O_TMPFILE).
func New(pattern string) (*File, error) {
	if f, err := openUnnamed(os.TempDir(), pattern); err == nil {
		return &File{File: f, unlinked: true}, nil
	}
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	return &File{File: f, unlinked: os.Remove(f.Name()) == nil}, nil
}

// Section reads the file from its start through ReadAt: any number of
// sections read at once, independently of each other and of the file's
// own offset.
func (f *File) Section() *io.SectionReader {
	return io.NewSectionReader(f.File, 0, math.MaxInt64)
}

// Close closes the file and removes it if it still has a name.
func (f *File) Close() error {
	err := f.File.Close()
	if !f.unlinked {
		err = errors.Join(err, os.Remove(f.Name()))
	}
	return err
}
