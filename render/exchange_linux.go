package render

import "golang.org/x/sys/unix"

// exchange swaps two paths in one atomic step (renameat2 RENAME_EXCHANGE), so
// there is no instant at which the output directory is missing.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
