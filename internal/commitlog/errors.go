package commitlog

import (
	"errors"
	"fmt"

	"github.com/tabuladb/tabula/internal/base"
)

// ErrFailed is wrapped by every error after a write, sync or segment
// creation failed. A failed log refuses all further writes, and Wait of a
// record that was not yet synced fails.
var ErrFailed = errors.New("commitlog: log failed")

var errClosed = fmt.Errorf("commitlog: %w", base.ErrClosed)

// failure wraps cause so that the result matches both ErrFailed and cause.
func failure(cause error) error { return fmt.Errorf("%w: %w", ErrFailed, cause) }
