//go:build !linux

package dispatch

import "os"

// reserve is a no-op where files cannot be preallocated past their end.
func (h *History) reserve(f *os.File, end int64) {}
