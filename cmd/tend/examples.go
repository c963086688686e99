package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// examples are shown under "Examples:" in each command's help, keyed by
// the command path without "tend". They live here, together, so the help
// reads as one voice; a command that sets its own Example keeps it.
var examples = map[string]string{
	"": `  tend daemon &
  tend add ~/Downloads --name downloads --instructions "File every PDF under Invoices/YYYY"
  tend list`,
	"add": `  tend add ~/Downloads --name downloads \
      --instructions "File every PDF under Invoices/YYYY by its date"
  tend add ~/Photos --name photos --instructions "Sort into YYYY/MM" \
      --responsiveness patient --ignore '*.tmp' --dry-run
  tend add ~/Projects/site --name site --instructions "Fix what the build log complains about" \
      --tail build.log --fail-pattern 'ERROR'
  tend add --template --name tidy --instructions "Keep it tidy"   # attach later`,
	"attach": `  tend attach tidy ~/Desktop
  tend attach tidy ~/Documents/Inbox --name inbox`,
	"daemon": `  tend daemon
  tend daemon --tray --max-runs 1
  tend daemon --http ""   # no history viewer`,
	"detach":      `  tend detach desktop`,
	"doctor":      "  tend doctor\n  tend doctor --json",
	"edit":        "  tend edit downloads --instructions \"File PDFs and images\"\n  tend edit downloads --responsiveness relaxed --no-schedule\n  tend edit downloads --disable",
	"fingerprint": "  tend fingerprint ~/Downloads",
	"history":     "  tend history downloads\n  tend history downloads --run 20261201T090000Z-1a2b3c4d\n  tend history downloads --json",
	"key":         "  tend key set openai < key.txt\n  tend key rm openai",
	"key rm":      "  tend key rm openai",
	"key set":     "  tend key set openai            # asks for the key, without echo\n  tend key set openrouter < key.txt",
	"list":        "  tend list\n  tend list --json",
	"logs":        "  tend logs\n  tend logs -f\n  tend logs -n 200",
	"open":        "  tend open\n  tend open --print",
	"panic":       "  tend panic\n  tend resume --all   # afterwards",
	"pause":       "  tend pause downloads\n  tend pause --all",
	"rm":          "  tend rm downloads",
	"run":         "  tend run downloads\n  tend run downloads --dry-run\n  tend run downloads --follow   # stream it; exit 1 if it fails",
	"service": `  tend service install
  tend service status
  tend service uninstall`,
	"service install":   "  tend service install\n  OLLAMA_HOST=http://gpu-box:11434 tend service install   # the service keeps it",
	"service status":    "  tend service status",
	"service uninstall": "  tend service uninstall",
	"show":              "  tend show downloads\n  tend show downloads --json",
	"status":            "  tend status\n  tend status --json",
	"tray":              "  tend tray &",
	"undo":              "  tend undo downloads\n  tend undo downloads --run 20261201T090000Z-1a2b3c4d",
}

// addExamples fills in the Example of every command that has none.
func addExamples(c *cobra.Command) {
	path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "tend"), " ")
	if c.Example == "" {
		c.Example = examples[path]
	}
	for _, sub := range c.Commands() {
		addExamples(sub)
	}
}
