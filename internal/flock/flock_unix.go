//go:build unix

package flock

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const nonblock = unix.O_NONBLOCK

type fileID struct{ dev, ino uint64 }

func identity(f *os.File) (fileID, error) {
	info, err := f.Stat()
	if err != nil {
		return fileID{}, err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, errors.ErrUnsupported
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, nil
}

// tryFlock takes the lock on f without waiting; taken is false while
// another open file holds it.
func tryFlock(f *os.File) (taken bool, err error) {
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, unix.EINTR):
			continue
		}
		return false, err
	}
}
