//go:build !unix

package flock

import (
	"errors"
	"os"
)

const nonblock = 0

type fileID struct{}

// identity fails where flock does not exist, so no lock is ever taken.
func identity(*os.File) (fileID, error) { return fileID{}, errors.ErrUnsupported }

func tryFlock(*os.File) (bool, error) { return false, errors.ErrUnsupported }
