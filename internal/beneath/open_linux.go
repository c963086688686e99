//go:build linux

package beneath

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

var noOpenat2 atomic.Bool

// openBeneath lets the kernel refuse links and escapes (openat2); kernels
// before 5.6 get the component walk.
func openBeneath(rootfd int, rel string) (int, error) {
	if !forceWalk.Load() && !noOpenat2.Load() {
		how := unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
		for i := 0; ; i++ {
			fd, err := unix.Openat2(rootfd, rel, &how)
			if (errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR)) && i < 1000 {
				continue
			}
			if errors.Is(err, unix.ENOSYS) {
				noOpenat2.Store(true)
				break
			}
			return fd, err
		}
	}
	return walk(rootfd, rel)
}
