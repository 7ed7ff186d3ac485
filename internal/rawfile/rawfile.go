// Package rawfile opens files that are read or written once, front to back,
// with as few system calls as the system allows. On Linux, os.Open and
// os.OpenFile try every file in the network poller: four fcntl calls and an
// epoll_ctl that fails for a regular file, 74,000 calls for the 15,000 files
// a full report reads and writes at 1 GB of logs, twice its reads. A File
// here makes none of them; elsewhere it is an *os.File.
package rawfile

import "io"

var (
	_ io.ReadWriteSeeker = (*File)(nil)
	_ io.Closer          = (*File)(nil)
)
