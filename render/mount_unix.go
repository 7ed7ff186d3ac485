//go:build unix

package render

import (
	"path/filepath"
	"syscall"
)

// mountPoint reports whether dir exists and lies on another device than its
// parent: a mount point, which cannot be renamed.
func mountPoint(dir string) bool {
	var st, up syscall.Stat_t
	if syscall.Stat(dir, &st) != nil || syscall.Stat(filepath.Dir(dir), &up) != nil {
		return false
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFDIR && (st.Dev != up.Dev || st.Ino == up.Ino)
}
