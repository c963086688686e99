//go:build unix

package sandbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// A regular file with more than one hard link shares its content with
// another name, which may be outside the watched folder (a link made there
// by another user or program): reading it would show outside content, and
// editing it in place would change it. The tools refuse such files unless
// the watcher sets allowHardLinks.

func hardLinkErr(rel string, nlink uint64) error {
	return toolErrf("%q is a file with %d hard links (names): its content is shared with another name that may be outside the watched folder, so it is not read or changed. Leave it alone, or ask the person to set \"allowHardLinks\": true in this watcher's definition if such files may be used", dotted(rel), nlink)
}

// checkLinks refuses m (the metadata of rel) when it is a regular file with
// more than one hard link and the watcher does not allow them.
func (b *Box) checkLinks(rel string, m Meta) error {
	if b.opts.AllowHardLinks || m.Kind != "file" || m.Nlink <= 1 {
		return nil
	}
	return hardLinkErr(rel, m.Nlink)
}

// refuseLinkedFile checks an opened file itself, so a link made between a
// stat and the open is still seen.
func refuseLinkedFile(f *os.File, rel string) error {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 {
		return hardLinkErr(rel, uint64(st.Nlink))
	}
	return nil
}

// openContent opens the regular file base inside dirfd (rel in the folder)
// to read the content the model will see.
func (b *Box) openContent(dirfd int, base, rel string) (*os.File, error) {
	f, err := openFileAt(dirfd, base)
	if err != nil {
		return nil, err
	}
	if !b.opts.AllowHardLinks {
		if err := refuseLinkedFile(f, rel); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}
