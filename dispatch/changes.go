package dispatch

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ChangesToolName is the tool that pages through a pass's changed paths
// when there are more than the prompt lists: an overflow never hides a
// change from the model.
const ChangesToolName = "changes_list"

// changesPage is how many paths one changes_list call returns at most.
const changesPage = 200

// ChangesToolSpec describes changes_list to the model.
func ChangesToolSpec() ToolSpec {
	return ToolSpec{
		Name:        ChangesToolName,
		Description: fmt.Sprintf("List the paths that changed since the last check, from offset on (the prompt shows the first %d). At most %d per call; the answer says the offset to ask for next.", MaxPromptPaths, changesPage),
		Parameters: map[string]any{"type": "object", "required": []string{}, "properties": map[string]any{
			"offset": map[string]any{"type": "integer", "description": fmt.Sprintf("index of the first path to list; default %d", MaxPromptPaths)},
		}},
	}
}

// ListChanges answers a changes_list call over changed.
func ListChanges(changed []ChangedPath, args json.RawMessage) (string, error) {
	var a struct {
		Offset *int `json:"offset"`
	}
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &a); err != nil {
			return "", fmt.Errorf("changes_list takes {\"offset\": N}: %v", err)
		}
	}
	off := MaxPromptPaths
	if a.Offset != nil {
		off = *a.Offset
	}
	if off < 0 {
		return "", fmt.Errorf("offset %d is negative: use 0 to %d", off, len(changed))
	}
	if off >= len(changed) {
		return fmt.Sprintf("No more changed paths: there are %d in all.", len(changed)), nil
	}
	end := min(off+changesPage, len(changed))
	var b strings.Builder
	fmt.Fprintf(&b, "Changed paths %d to %d of %d:\n", off+1, end, len(changed))
	for _, c := range changed[off:end] {
		b.WriteString("- ")
		b.WriteString(pathSpan(c.Path))
		if c.Removed {
			b.WriteString(" (removed)")
		}
		b.WriteString("\n")
	}
	if end < len(changed) {
		fmt.Fprintf(&b, "%d more: call %s with offset %d.\n", len(changed)-end, ChangesToolName, end)
	}
	return b.String(), nil
}
