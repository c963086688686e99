// Package fingerprint builds a Merkle tree of a folder's metadata: for every
// entry its relative path, kind, size and modification time, hashed with
// xxhash. A directory's hash covers its sorted children (name and child
// hash), so equal subtrees compare equal by hash and Diff skips them.
//
// Trees are immutable. Update returns a new Tree that shares every unchanged
// node with the old one (path copying), so a daemon can keep a baseline and a
// live tree side by side for little more memory than one.
//
// What is left out of a tree: hidden entries (unless Options.IncludeHidden),
// .git, editor swap and temporary files, the watcher's gitignore-style
// patterns, the patterns of a .tendignore file in the folder root, the
// excluded subtrees of nested watchers and, with Options.NonRecursive,
// everything inside subfolders. Patterns mean exactly what they mean in a
// .gitignore (wildmatch.go is a port of git's matcher, and a differential
// test holds it to git). Symbolic links are entries of their own and are
// never followed.
//
// A tree carries its rules. Diff between trees built under different
// rules lists only what both sets of rules see, and Rebase re-expresses a
// baseline under new rules, so a rule change is never news by itself.
package fingerprint
