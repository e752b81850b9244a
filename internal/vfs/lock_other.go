//go:build !unix

package vfs

import (
	"errors"
	"os"
)

// lockFile is not supported off Unix.
func lockFile(*os.File) error { return errors.ErrUnsupported }
