//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// fileID tells a rotated log file from the new one at the same path.
type fileID struct{ dev, ino uint64 }

func idOf(fi fs.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{uint64(st.Dev), uint64(st.Ino)}
	}
	return fileID{}
}
