//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockDir holds an exclusive advisory lock (flock) on a directory until
// unlock is called: runs extending the same history take turns instead of
// losing each other's entry. Where the directory cannot be opened or locked
// (missing, or a file system without flock) the run goes on unlocked.
func lockDir(dir string) (unlock func()) {
	f, err := os.Open(dir)
	if err != nil {
		return func() {}
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() } // closing releases the lock
}
