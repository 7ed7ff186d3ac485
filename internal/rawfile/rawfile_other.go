//go:build !unix

package rawfile

import (
	"io/fs"
	"os"
)

// File is an *os.File where the system has no cheaper way in.
type File = os.File

// Open opens name for reading.
func Open(name string) (*File, error) { return os.Open(name) }

// Create creates name for writing; it must not exist yet.
func Create(name string, perm fs.FileMode) (*File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}
