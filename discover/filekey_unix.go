//go:build unix

package discover

import (
	"io/fs"
	"syscall"
)

// fileKey identifies the file behind info (device and inode), so that one
// file reached twice (a hard link, roots that overlap) is read once.
func fileKey(info fs.FileInfo) ([2]uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return [2]uint64{}, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
