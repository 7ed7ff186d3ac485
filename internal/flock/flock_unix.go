//go:build unix

package flock

import (
	"os"

	"golang.org/x/sys/unix"
)

func lock(path string, wait bool) (unlock func(), ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return func() {}, false
	}
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	if err := unix.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return func() {}, false
	}
	return func() { f.Close() }, true // closing releases the lock
}
