package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/tend-agent/tend/fingerprint"
)

func init() { addCommand(newFingerprintCommand) }

// fingerprintOptions are the flags of `tend fingerprint`.
type fingerprintOptions struct {
	path   string
	json   bool
	hidden bool
	ignore []string
	out    io.Writer
}

func newFingerprintCommand(g *globalOptions) *cobra.Command {
	opts := fingerprintOptions{}
	cmd := &cobra.Command{
		Use:   "fingerprint PATH",
		Short: "Fingerprint a folder and print its root hash and counts",
		Long: "Walks PATH the way a watcher does (hidden entries, .git, editor swap files,\n" +
			"ignore patterns and .tendignore left out) and prints the Merkle root hash,\n" +
			"the number of files and directories, and the time it took.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			opts.out = cmd.OutOrStdout()
			return runFingerprint(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.json, "json", false, "print a JSON object")
	f.BoolVar(&opts.hidden, "hidden", false, "include hidden entries (names starting with '.')")
	f.StringArrayVar(&opts.ignore, "ignore", nil, "gitignore-style pattern to leave out (repeatable)")
	return cmd
}

// fingerprintResult is the --json output.
type fingerprintResult struct {
	Root      string             `json:"root"`
	Hash      string             `json:"hash"`
	Files     int                `json:"files"`
	Dirs      int                `json:"dirs"`
	Skipped   []fingerprint.Skip `json:"skipped"`
	ElapsedMs float64            `json:"elapsedMs"`
}

func runFingerprint(ctx context.Context, opts fingerprintOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.out == nil {
		opts.out = os.Stdout
	}
	for _, p := range opts.ignore {
		if err := fingerprint.ValidatePattern(p); err != nil {
			return fmt.Errorf("--ignore: %w", err)
		}
	}
	start := time.Now()
	t, err := fingerprint.Build(ctx, opts.path, fingerprint.Options{IncludeHidden: opts.hidden, Ignore: opts.ignore})
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	files, dirs := t.Counts()
	res := fingerprintResult{
		Root:      t.Root(),
		Hash:      fmt.Sprintf("%016x", t.RootHash()),
		Files:     files,
		Dirs:      dirs,
		Skipped:   t.Skipped(),
		ElapsedMs: float64(elapsed.Microseconds()) / 1000,
	}
	if res.Skipped == nil {
		res.Skipped = []fingerprint.Skip{}
	}
	if opts.json {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(opts.out, "root   %s\nhash   %s\nfiles  %d\ndirs   %d\ntime   %s\n",
		res.Root, res.Hash, res.Files, res.Dirs, elapsed.Round(time.Microsecond))
	for _, s := range res.Skipped {
		fmt.Fprintf(opts.out, "skipped %s: %s\n", s.Path, s.Err)
	}
	return nil
}
