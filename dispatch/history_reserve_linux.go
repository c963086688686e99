package dispatch

import (
	"os"

	"golang.org/x/sys/unix"
)

// historyReserve is how much room past its end a session file keeps
// allocated, so that when the disk fills up during a run the records that
// say why the run failed (and how it ended) can still be written.
const historyReserve = 64 << 10

// reserve keeps historyReserve bytes allocated past end, without changing
// the file's size. It is best effort: a file system that cannot
// preallocate just has no reserve.
func (h *History) reserve(f *os.File, end int64) {
	if end+historyReserve/2 <= h.reserved {
		return
	}
	// A History is often opened afresh for each append: the blocks the
	// file already has say whether the reserve is still there, and a
	// fallocate (and the metadata it adds to the next fsync) is skipped.
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err == nil && st.Blocks*512 >= end+historyReserve/2 {
		h.reserved = st.Blocks * 512
		return
	}
	if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, end, historyReserve); err == nil {
		h.reserved = end + historyReserve
	}
}
