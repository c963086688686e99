package api

// RunChanges answers GET /v1/watchers/{ref}/runs/{run}/changes: what one
// run changed in the folder, read back from its ledger and the backups
// it kept. It is what the viewer's per-run diff shows.
type RunChanges struct {
	RunID string `json:"runId"`
	// Undone: the run was undone, so the folder holds Before again.
	Undone bool `json:"undone,omitempty"`
	// DryRun: the run only planned its changes; nothing was changed.
	DryRun bool `json:"dryRun,omitempty"`
	// Before and After are the paths the run touched, as they were before
	// its first change and after its last one (absent paths left out),
	// sorted by path.
	Before []TreeEntry `json:"before"`
	After  []TreeEntry `json:"after"`
	// Files are the text files the run edited or overwrote, with their
	// content before and after.
	Files []FileChange `json:"files"`
	// Omitted counts the edited files left out because the answer would
	// have grown past its size limit.
	Omitted int `json:"omitted,omitempty"`
}

// TreeEntry is one path of a run's before or after tree.
type TreeEntry struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // "file", "dir", "symlink" or "other"
	Size int64  `json:"size,omitempty"`
	// Status says how the path differs from the other side: "added" or
	// "changed" in After, "removed" or "changed" in Before; "" when it is
	// the same.
	Status string `json:"status,omitempty"`
}

// FileChange is one edited or overwritten file. Before or After is nil
// when that side cannot be shown; Note then says why (not text, too
// large, changed since the run).
type FileChange struct {
	Path   string  `json:"path"`
	Op     string  `json:"op"` // "edit" or "write" (an overwrite)
	Before *string `json:"before,omitempty"`
	After  *string `json:"after,omitempty"`
	Note   string  `json:"note,omitempty"`
}
