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
	"golang.org/x/term"

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
		Short: "Store the key NAME: typed without echo on a terminal, or read from standard input",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			secret, err := readKeyInput(cmd.InOrStdin(), cmd.ErrOrStderr(), args[0])
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

// readKeyInput reads the key from standard input. On a terminal it asks
// for it and turns echo off while it is typed, so the key is never on the
// screen (or in a screen recording, or a terminal's scrollback).
func readKeyInput(in io.Reader, prompt io.Writer, name string) (string, error) {
	f, ok := in.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return readKey(in)
	}
	fmt.Fprintf(prompt, "Paste the key for %s and press Enter (it is not shown): ", name)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(prompt)
	if err != nil {
		return "", fmt.Errorf("reading the key from the terminal: %w", err)
	}
	if len(b) > maxKeyBytes {
		return "", errors.New("the key typed is too long: give the key alone")
	}
	key := strings.TrimSpace(string(b))
	if key == "" {
		return "", errors.New("no key typed: paste it and press Enter, or pipe it in: `tend key set NAME < key.txt`")
	}
	return key, nil
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
