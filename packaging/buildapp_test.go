package packaging

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	cmd.Env = append(os.Environ(), "GOARCH=arm64", "CGO_ENABLED=0", "VERSION=1.4.2", "BUILD=317")
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("build-app.sh: %v\n%s", err, log)
	}
	if !strings.Contains(string(log), "WARNING: built without cgo") || !strings.Contains(string(log), "polling") {
		t.Errorf("a cgo-less build should warn that it falls back to polling:\n%s", log)
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
	golden(t, "Info.plist.golden", info) // the repository's, stamped 1.4.2 (317)
	icon, err := os.ReadFile(filepath.Join(app, "Contents", "Resources", "Tend.icns"))
	repoIcon, _ := os.ReadFile("Tend.icns")
	if err != nil || !bytes.Equal(icon, repoIcon) {
		t.Errorf("Contents/Resources/Tend.icns is not packaging/Tend.icns: %v", err)
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

// TestBuildAppWithoutCgoToolchain: where no darwin C compiler is at hand
// the default (cgo) build stops at once with a message that says why and
// what to do, and leaves nothing behind.
func TestBuildAppWithoutCgoToolchain(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("a Mac may well have the Command Line Tools")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	out := filepath.Join(t.TempDir(), "dist")
	cmd := exec.Command(bash, "build-app.sh", out)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CGO_ENABLED=") && !strings.HasPrefix(kv, "CC=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	log, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("build-app.sh built without a darwin C compiler:\n%s", log)
	}
	for _, want := range []string{"cannot build Tend.app with cgo", "FSEvents", "menu-bar icon", "CGO_ENABLED=0"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("message lacks %q:\n%s", want, log)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("left %s behind: %v", out, err)
	}
}

// TestStampInfo runs the stamping step of build-app.sh on the repository's
// Info.plist and refuses versions macOS would not take.
func TestStampInfo(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	repoInfo, err := os.ReadFile(filepath.Join("..", "Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	stamp := func(version, build string) ([]byte, error) {
		cmd := exec.Command(bash, "stamp-info.sh", version, build)
		cmd.Stdin = bytes.NewReader(repoInfo)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			return stderr.Bytes(), err
		}
		return stdout.Bytes(), nil
	}
	got, err := stamp("1.4.2", "317")
	if err != nil {
		t.Fatalf("stamp-info.sh: %v\n%s", err, got)
	}
	golden(t, "Info.plist.golden", got)
	plutilLint(t, got)
	v, err := DecodePlist(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := v.(map[string]any)
	if d["CFBundleShortVersionString"] != "1.4.2" || d["CFBundleVersion"] != "317" {
		t.Errorf("stamped %v (%v), want 1.4.2 (317)", d["CFBundleShortVersionString"], d["CFBundleVersion"])
	}
	for _, bad := range [][2]string{{"1.4.2-rc1", "3"}, {"v1", "3"}, {"1.2.3.4", "3"}, {"1.0", "x"}, {"", "1"}} {
		if msg, err := stamp(bad[0], bad[1]); err == nil || !strings.Contains(string(msg), "macOS accepts") {
			t.Errorf("stamp-info.sh %q %q: %v %s; want a refusal", bad[0], bad[1], err, msg)
		}
	}
}
