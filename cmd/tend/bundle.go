package main

import (
	"path/filepath"
	"strings"
)

// bundleArgs decides what a start with no command means. Finder and the
// login items start Tend.app's executable with no arguments (older macOS
// adds one -psn_0_NNN process serial number); inside an app bundle that
// means "run the daemon with the menu-bar icon", since a double-clicked
// app that prints help and exits does nothing a person can see. Anywhere
// else, or with any real argument, the arguments are kept as they are.
// It is a pure function of argv (without the program name) and the
// executable's path, so it is tested on any system.
func bundleArgs(args []string, exe string) []string {
	var rest []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-psn_") {
			rest = append(rest, a)
		}
	}
	if len(rest) > 0 || !inAppBundle(exe) {
		return args
	}
	return []string{"daemon", "--tray"}
}

// inAppBundle reports whether exe is a bundle's main executable:
// NAME.app/Contents/MacOS/EXE.
func inAppBundle(exe string) bool {
	macos := filepath.Dir(exe)
	contents := filepath.Dir(macos)
	app := filepath.Dir(contents)
	return filepath.Base(macos) == "MacOS" && filepath.Base(contents) == "Contents" &&
		strings.HasSuffix(filepath.Base(app), ".app") && filepath.Base(app) != ".app"
}
