//go:build !linux

package render

import "errors"

func exchange(a, b string) error { return errors.ErrUnsupported }
