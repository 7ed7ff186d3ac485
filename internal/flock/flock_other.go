//go:build !unix

package flock

// lock cannot be taken where flock does not exist.
func lock(string, bool) (unlock func(), ok bool) { return func() {}, false }
