package main

import (
	"slices"
	"testing"
)

func TestBundleArgs(t *testing.T) {
	const app = "/Applications/Tend.app/Contents/MacOS/tend"
	tray := []string{"daemon", "--tray"}
	cases := []struct {
		name string
		args []string
		exe  string
		want []string
	}{
		{"Finder start", nil, app, tray},
		{"login item, old macOS", []string{"-psn_0_123456"}, app, tray},
		{"bundle in a folder with spaces", nil, "/Users/ann/My Apps/Tend.app/Contents/MacOS/tend", tray},
		{"a command in the bundle", []string{"status"}, app, []string{"status"}},
		{"help in the bundle", []string{"--help"}, app, []string{"--help"}},
		{"a command after -psn", []string{"-psn_0_1", "list"}, app, []string{"-psn_0_1", "list"}},
		{"plain binary", nil, "/usr/local/bin/tend", nil},
		{"binary in a MacOS folder outside a bundle", nil, "/opt/Contents/MacOS/tend", nil},
		{"a bare .app name", nil, "/x/.app/Contents/MacOS/tend", nil},
		{"binary beside the bundle", nil, "/Applications/Tend.app/tend", nil},
		{"relative path", nil, "Tend.app/Contents/MacOS/tend", tray},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := bundleArgs(c.args, c.exe); !slices.Equal(got, c.want) {
				t.Errorf("bundleArgs(%q, %q) = %q, want %q", c.args, c.exe, got, c.want)
			}
		})
	}
}
