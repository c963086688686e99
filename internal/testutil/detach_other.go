//go:build !linux

package testutil

// detach: elsewhere there is no lazy unmount; Tmpfs is skipped there
// anyway, because `mount -t tmpfs` is Linux's.
const detach = 0
