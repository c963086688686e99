package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tend-agent/tend/dispatch"
)

func init() { addCommand(newKeyCommand) }

// maxKeyBytes bounds what `tend key set` reads from standard input.
const maxKeyBytes = 64 << 10

func newKeyCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Store or remove API keys in the OS keyring",
		Long: "API keys live in the OS keyring (service \"tend\"), never in tend's files.\n" +
			"Where no keyring is reachable, tend reads OPENAI_API_KEY from the environment instead.",
	}
	set := &cobra.Command{
		Use:   "set NAME",
		Short: "Store the key NAME, read from standard input (e.g. `tend key set openai < key.txt`)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := cmd.InOrStdin()
			if f, ok := in.(*os.File); ok && isTerminal(f) {
				fmt.Fprintf(cmd.ErrOrStderr(), "Paste the key for %s and press Enter: ", args[0])
			}
			secret, err := readKey(in)
			if err != nil {
				return err
			}
			keys := dispatch.Keys(slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil)))
			if err := keys.Set(args[0], secret); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "stored key %s in the OS keyring\n", args[0])
			return nil
		},
	}
	rm := &cobra.Command{
		Use:     "rm NAME",
		Aliases: []string{"remove", "delete"},
		Short:   "Remove the key NAME from the OS keyring",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			keys := dispatch.Keys(slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil)))
			if err := keys.Delete(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed key %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(set, rm)
	return cmd
}

// readKey reads one key: the first line of the input, trimmed.
func readKey(in io.Reader) (string, error) {
	r := bufio.NewReader(io.LimitReader(in, maxKeyBytes+1))
	line, err := r.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the key from standard input: %w", err)
	}
	if len(line) > maxKeyBytes {
		return "", errors.New("the key on standard input is too long: give the key alone")
	}
	key := strings.TrimSpace(line)
	if key == "" {
		return "", errors.New("no key on standard input: pipe it in, e.g. `tend key set openai < key.txt`")
	}
	return key, nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
