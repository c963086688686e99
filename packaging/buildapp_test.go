package packaging

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildApp runs build-app.sh into a temporary folder (cross-compiling
// for darwin) and checks the bundle it assembles.
func TestBuildApp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole binary for darwin; skipped with -short")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	out := filepath.Join(t.TempDir(), "dist dir")
	cmd := exec.Command(bash, "build-app.sh", out)
	cmd.Env = append(os.Environ(), "GOARCH=arm64", "CGO_ENABLED=0")
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("build-app.sh: %v\n%s", err, log)
	}
	if !strings.Contains(string(log), "polling") {
		t.Errorf("a cgo-less build should say it falls back to polling:\n%s", log)
	}

	app := filepath.Join(out, "Tend.app")
	exe, err := os.ReadFile(filepath.Join(app, "Contents", "MacOS", "tend"))
	if err != nil {
		t.Fatal(err)
	}
	// Mach-O 64-bit, little-endian: CF FA ED FE.
	if len(exe) < 4 || !bytes.Equal(exe[:4], []byte{0xcf, 0xfa, 0xed, 0xfe}) {
		t.Errorf("Contents/MacOS/tend is not a 64-bit Mach-O binary")
	}
	if fi, err := os.Stat(filepath.Join(app, "Contents", "MacOS", "tend")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("Contents/MacOS/tend is not executable: %v", err)
	}
	info, err := os.ReadFile(filepath.Join(app, "Contents", "Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	repoInfo, _ := os.ReadFile(filepath.Join("..", "Info.plist"))
	if !bytes.Equal(info, repoInfo) {
		t.Error("Contents/Info.plist differs from the repository's Info.plist")
	}
	if pkg, err := os.ReadFile(filepath.Join(app, "Contents", "PkgInfo")); err != nil || string(pkg) != "APPL????" {
		t.Errorf("PkgInfo = %q, %v; want APPL????", pkg, err)
	}
	if fi, err := os.Stat(filepath.Join(app, "Contents", "Resources")); err != nil || !fi.IsDir() {
		t.Errorf("Contents/Resources missing: %v", err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 {
		t.Errorf("output folder holds %d entries, want only Tend.app (no scratch left)", len(entries))
	}
}
