//go:build unix

package rawfile

import (
	"io"
	"io/fs"
	"os"
	"syscall"
)

// File is an open file descriptor with the errors of an *os.File (an
// *fs.PathError naming the operation, io.EOF at the end). Unlike an
// *os.File it has no cleanup: it must be closed.
type File struct {
	fd   int
	name string
}

// Open opens name for reading. O_NONBLOCK keeps a FIFO put where a log was
// from blocking the open; it changes nothing for a regular file. Anything
// else (a pipe named as a root: agentstat summary /dev/stdin) is then read
// blocking, so that a read waits for its writer instead of failing.
func Open(name string) (*File, error) {
	f, err := open(name, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(f.fd, &st); err == nil && st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		if err := syscall.SetNonblock(f.fd, false); err != nil {
			f.Close()
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
	return f, nil
}

// Create creates name for writing; it must not exist yet (O_EXCL).
func Create(name string, perm fs.FileMode) (*File, error) {
	return open(name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL, uint32(perm.Perm()))
}

func open(name string, flag int, perm uint32) (*File, error) {
	for {
		fd, err := syscall.Open(name, flag|syscall.O_CLOEXEC, perm)
		if err == nil {
			return &File{fd: fd, name: name}, nil
		}
		if err != syscall.EINTR {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
}

// Name is the name the file was opened with.
func (f *File) Name() string { return f.name }

func (f *File) Read(p []byte) (int, error) {
	if f.fd < 0 {
		return 0, os.ErrClosed
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write writes all of p, or says why not.
func (f *File) Write(p []byte) (int, error) {
	if f.fd < 0 {
		return 0, os.ErrClosed
	}
	written := 0
	for written < len(p) {
		n, err := syscall.Write(f.fd, p[written:])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return written, &fs.PathError{Op: "write", Path: f.name, Err: err}
		case n == 0:
			return written, &fs.PathError{Op: "write", Path: f.name, Err: io.ErrShortWrite}
		}
		written += n
	}
	return written, nil
}

func (f *File) Seek(offset int64, whence int) (int64, error) {
	if f.fd < 0 {
		return 0, os.ErrClosed
	}
	off, err := syscall.Seek(f.fd, offset, whence)
	if err != nil {
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: err}
	}
	return off, nil
}

// Close closes the file; a second Close is an error, never a close of
// whatever file has since been given the same descriptor.
func (f *File) Close() error {
	if f.fd < 0 {
		return os.ErrClosed
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}
