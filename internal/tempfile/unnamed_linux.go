package tempfile

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a file in dir that never has a name (O_TMPFILE): a
// file created and then unlinked kept its name for an instant, and a run
// killed in it left the file behind.
func openUnnamed(dir, pattern string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, pattern+" (unnamed)")), nil
}
