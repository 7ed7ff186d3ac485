//go:build !unix

package main

// lockDir is a no-op where flock does not exist: concurrent runs extending
// one history can lose an entry there.
func lockDir(string) (unlock func()) { return func() {} }
