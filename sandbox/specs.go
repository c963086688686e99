package sandbox

// ToolSpec describes one tool to a model. Parameters is a JSON Schema
// object.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  map[string]any
}

func obj(required []string, props map[string]any) map[string]any {
	if required == nil {
		required = []string{}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

func str(desc string) map[string]any  { return map[string]any{"type": "string", "description": desc} }
func flag(desc string) map[string]any { return map[string]any{"type": "boolean", "description": desc} }

const relNote = " Paths are relative to the watched folder."

// Specs returns the ten host-folder tools.
func Specs() []ToolSpec {
	return []ToolSpec{
		{"file_tree", "Show the folder tree (3 levels deep, at most 300 entries; folders with more than 20 entries are cut to \"+N more\")." + relNote,
			obj(nil, map[string]any{"path": str("folder to show; default: the watched folder")})},
		{"file_read", "Read a file (at most 15000 characters; longer files are cut with a note). Text files are shown as they are; PDF and office documents as their text, photos and recordings as their metadata (date taken, camera, tags), archives as a listing, after a line saying what kind of file it is. A folder is listed instead." + relNote,
			obj([]string{"path"}, map[string]any{"path": str("file to read")})},
		{"file_write", "Create a file with the given content (missing parent folders are created). An existing file is only replaced when overwrite is true; its old content is backed up." + relNote,
			obj([]string{"path", "content"}, map[string]any{
				"path": str("file to create"), "content": str("the full content"),
				"overwrite": flag("replace the file if it exists (default false)")})},
		{"file_edit", "Replace one exact, unique occurrence of old with new in a file (the old content is backed up)." + relNote,
			obj([]string{"path", "old", "new"}, map[string]any{
				"path": str("file to edit"), "old": str("exact text to replace; must occur exactly once"), "new": str("replacement text")})},
		{"file_move", "Move or rename a file or folder. If to is an existing folder, the entry is moved into it. Never replaces an existing entry; missing parent folders are created." + relNote,
			obj([]string{"from", "to"}, map[string]any{"from": str("entry to move"), "to": str("new path, or an existing folder")})},
		{"file_copy", "Copy a file or folder. If to is an existing folder, the copy goes into it. Never replaces an existing entry." + relNote,
			obj([]string{"from", "to"}, map[string]any{"from": str("entry to copy"), "to": str("path of the copy, or an existing folder")})},
		{"dir_create", "Create a folder and any missing parents (like mkdir -p)." + relNote,
			obj([]string{"path"}, map[string]any{"path": str("folder to create")})},
		{"file_delete", "Move a file or folder to the trash (it can be restored)." + relNote,
			obj([]string{"path"}, map[string]any{"path": str("entry to delete")})},
		{"file_metadata", "Show an entry's kind, size, modification time and permissions; for a file also its type and what its content says about it (page count, title, date taken, duration)." + relNote,
			obj([]string{"path"}, map[string]any{"path": str("entry to describe")})},
		{"file_search", "Find entries whose name contains pattern (or matches it as a glob such as *.pdf or **/2024/*.txt); with content true, find lines containing pattern in text files and in the text of documents (PDF, office)." + relNote,
			obj([]string{"pattern"}, map[string]any{
				"pattern": str("substring or glob"), "path": str("folder to search; default: the watched folder"),
				"content": flag("search file contents instead of names (default false)")})},
	}
}
