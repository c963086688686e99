package testutil

import "golang.org/x/sys/unix"

// detach unmounts lazily, so a test's leftover open file never keeps the
// tmpfs mounted.
const detach = unix.MNT_DETACH
