// Package sandbox is tend's host-folder mode: the ten file tools a model uses
// to act inside one watched folder, confined to that folder, together with
// the effects ledger that records every change they make, the trash that
// deleted files go to, and the undo that reverses a run.
//
// Confinement does not rely on checking path strings. Every path is opened
// relative to a directory descriptor of the watched folder: on Linux with
// openat2 and RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS, elsewhere (or where
// openat2 is missing) by walking the path one component at a time with
// O_NOFOLLOW and following only links that stay inside. Mutations are then
// made through the parent directory's descriptor (renameat, mkdirat, openat
// with O_EXCL), so a directory swapped for an outward link between two steps
// cannot redirect a write outside the folder.
//
// No tool silently replaces anything: file_write replaces an existing file
// only with "overwrite": true and backs the old content up first, file_move
// and file_copy never replace, file_edit backs up, and file_delete moves to
// the trash. Every mutation, including the planned ones of a dry run, is an
// Effect in the Ledger; Ledger.Unexplained and Undo read it.
package sandbox
