package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"
)

func init() { addCommand(newLogsCommand) }

func newLogsCommand(g *globalOptions) *cobra.Command {
	var follow bool
	var lines int
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Show the daemon's log (TEND_HOME/tend.log); -f follows it",
		Long: `Show the daemon's log. The daemon writes it to TEND_HOME/tend.log as well
as to standard error, and rotates it to tend.log.1 at 4 MiB, so this works
the same under systemd, launchd, Tend.app or a terminal.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if lines < 0 {
				return fmt.Errorf("-n %d: give the number of lines to show, 0 or more", lines)
			}
			h, err := g.resolveHome()
			if err != nil {
				return err
			}
			ctx, cancel := signalContext()
			defer cancel()
			return showLogs(ctx, logPath(h), lines, follow, cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing what the daemon logs until Ctrl-C")
	cmd.Flags().IntVarP(&lines, "lines", "n", 50, "show the last `N` lines first")
	return cmd
}

// logFollowPoll is how often `tend logs -f` looks for new lines.
const logFollowPoll = 200 * time.Millisecond

// showLogs prints the last n lines of the log (the rotated tend.log.1
// first, if the current file holds fewer), then with follow prints what
// is appended until ctx ends, reopening the file when it is rotated.
func showLogs(ctx context.Context, path string, n int, follow bool, out io.Writer) error {
	cur, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if !follow {
			return fmt.Errorf("no log yet at %s: the daemon writes it once it starts (`tend daemon`, or `tend service install`)", path)
		}
	} else if err != nil {
		return fmt.Errorf("reading the log: %w", err)
	}
	old, _ := os.ReadFile(path + ".1")
	out.Write(lastLines(append(old, cur...), n))
	if !follow {
		return nil
	}
	offset := int64(len(cur))
	var ino fileID
	if fi, err := os.Stat(path); err == nil {
		ino = idOf(fi)
	}
	tick := time.NewTicker(logFollowPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		fi, err := os.Stat(path)
		if err != nil {
			continue // between a rotation's rename and the new file
		}
		if id := idOf(fi); id != ino || fi.Size() < offset {
			// Rotated: the rest of the old file is in tend.log.1.
			if rest, err := readFrom(path+".1", offset); err == nil && ino != (fileID{}) {
				out.Write(rest)
			}
			ino, offset = id, 0
		}
		if fi.Size() > offset {
			b, err := readFrom(path, offset)
			if err != nil {
				return fmt.Errorf("reading the log: %w", err)
			}
			// Only whole lines: a line being written is printed next time.
			if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
				out.Write(b[:i+1])
				offset += int64(i + 1)
			}
		}
	}
}

func readFrom(path string, offset int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// lastLines returns the last n lines of b.
func lastLines(b []byte, n int) []byte {
	if n == 0 {
		return nil
	}
	var starts []int
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	pos := 0
	for sc.Scan() {
		starts = append(starts, pos)
		pos += len(sc.Bytes()) + 1
	}
	if len(starts) <= n {
		return b
	}
	return b[starts[len(starts)-n]:]
}
