// Command treegen makes a benchmark tree: treegen DIR ENTRIES.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/tend-agent/tend/fingerprint/internal/treegen"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: treegen DIR ENTRIES")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "treegen: ENTRIES must be a positive number")
		os.Exit(2)
	}
	if err := os.MkdirAll(os.Args[1], 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "treegen:", err)
		os.Exit(1)
	}
	files, dirs, err := treegen.Generate(os.Args[1], n, 1)
	if err != nil {
		fmt.Fprintln(os.Stderr, "treegen:", err)
		os.Exit(1)
	}
	fmt.Printf("generated %d files and %d directories in %s\n", files, dirs, os.Args[1])
}
