package check

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRunOutcomes(t *testing.T) {
	tests := []struct {
		name       string
		command    string
		want       Outcome
		wantOutput string
		wantErr    string
	}{
		{"quiet", "true", Quiet, "", ""},
		{"quiet with blank lines", "printf '\\n  \\n'", Quiet, "\n  \n", ""},
		{"stderr only is quiet", "echo note >&2", Quiet, "", ""},
		{"output", "echo 'disk 91% full'", Output, "disk 91% full\n", ""},
		{"failed with reason", "echo partial; echo 'first' >&2; echo 'boom: no route' >&2; exit 3", Failed, "partial\n", "check exited with status 3: boom: no route"},
		{"failed silent", "exit 1", Failed, "", "check exited with status 1 and printed no error"},
		{"killed by signal", "kill -TERM $$", Failed, "", "check was killed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Run(context.Background(), Spec{Command: tt.command, Dir: t.TempDir(), Timeout: 10 * time.Second})
			if res.Outcome != tt.want {
				t.Fatalf("Outcome = %q, want %q (err %v)", res.Outcome, tt.want, res.Err)
			}
			if res.Output != tt.wantOutput {
				t.Errorf("Output = %q, want %q", res.Output, tt.wantOutput)
			}
			if tt.wantErr == "" && res.Err != nil {
				t.Errorf("Err = %v, want nil", res.Err)
			}
			if tt.wantErr != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tt.wantErr)) {
				t.Errorf("Err = %v, want it to contain %q", res.Err, tt.wantErr)
			}
		})
	}
}

func TestRunEnvironmentAndDir(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(t.TempDir(), "state", "w1")
	spec := Spec{
		Command: `printf '%s|%s|%s|' "$TEND_WATCHER_NAME" "$TEND_WATCHER_STATE_DIR" "$TEND_WATCHER_LAST_RUN"; pwd -P; echo x > "$TEND_WATCHER_STATE_DIR/seen"`,
		Dir:     dir,
		Env:     Env{Name: "inbox", StateDir: state},
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	res := Run(context.Background(), spec)
	if want := "inbox|" + state + "||" + realDir + "\n"; res.Output != want {
		t.Fatalf("first run output = %q, want %q (err %v)", res.Output, want, res.Err)
	}
	last := time.Date(2026, 3, 8, 7, 0, 0, 0, time.FixedZone("EST", -5*3600))
	spec.Env.LastRun = last
	spec.Command = `cat "$TEND_WATCHER_STATE_DIR/seen"; printf '%s' "$TEND_WATCHER_LAST_RUN"`
	res = Run(context.Background(), spec)
	if want := "x\n2026-03-08T07:00:00-05:00"; res.Output != want {
		t.Fatalf("second run output = %q, want %q (state dir must persist)", res.Output, want)
	}
	fi, err := os.Stat(state)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("state dir: %v, mode %v", err, fi.Mode())
	}
}

func TestRunHidesAPIKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("TEND_TEST_VISIBLE", "yes")
	res := Run(context.Background(), Spec{Command: `printf '%s|%s' "${OPENAI_API_KEY-unset}" "$TEND_TEST_VISIBLE"`, Dir: t.TempDir()})
	if res.Output != "unset|yes" {
		t.Fatalf("Output = %q, want the key hidden and other variables visible", res.Output)
	}
}

func TestRunNeedsFolder(t *testing.T) {
	res := Run(context.Background(), Spec{Command: "true"})
	if res.Outcome != Failed || res.Err == nil || !strings.Contains(res.Err.Error(), "no folder to run in") {
		t.Fatalf("got %+v", res)
	}
}

func TestRunScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "check.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"from script in $(basename \"$PWD\")\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{script, "check.sh"} {
		res := Run(context.Background(), Spec{Script: p, Dir: dir})
		if res.Outcome != Output || res.Output != "from script in "+filepath.Base(dir)+"\n" {
			t.Fatalf("script %s: %+v", p, res)
		}
	}
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	// A background grandchild records its pid, then the check blocks.
	spec := Spec{Command: `sleep 5 & echo $! > child.pid; echo started; sleep 5`, Dir: dir, Timeout: 200 * time.Millisecond}
	res := Run(context.Background(), spec)
	if res.Outcome != Timeout {
		t.Fatalf("Outcome = %q, want timeout (err %v)", res.Outcome, res.Err)
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), "timed out after 200ms") {
		t.Fatalf("Err = %v", res.Err)
	}
	if res.Output != "started\n" {
		t.Errorf("Output = %q, want the output so far", res.Output)
	}
	assertChildGone(t, dir)
}

func TestRunCancelKillsGroup(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() {
		done <- Run(ctx, Spec{Command: `sleep 5 & echo $! > child.pid; sleep 5`, Dir: dir})
	}()
	waitFor(t, "child pid file", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "child.pid"))
		return err == nil && strings.HasSuffix(string(b), "\n")
	})
	cancel()
	res := <-done
	if res.Outcome != Cancelled {
		t.Fatalf("Outcome = %q, want cancelled (err %v)", res.Outcome, res.Err)
	}
	assertChildGone(t, dir)
}

func TestRunLeavesNoBackgroundChild(t *testing.T) {
	dir := t.TempDir()
	res := Run(context.Background(), Spec{Command: `sleep 5 >/dev/null 2>&1 & echo $! > child.pid`, Dir: dir})
	if res.Outcome != Quiet {
		t.Fatalf("Outcome = %q (err %v)", res.Outcome, res.Err)
	}
	assertChildGone(t, dir)
}

func assertChildGone(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: cannot inspect child processes here")
	}
	b, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatalf("child.pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "background child "+strconv.Itoa(pid)+" to die", func() bool { return !alive(pid) })
}

func TestOutputCap(t *testing.T) {
	// START, 300,000 'x', END: far more than MaxOutput.
	cmd := `printf START; i=0; while [ $i -lt 300 ]; do printf '%01000d' 0 | tr 0 x; i=$((i+1)); done; printf END`
	res := Run(context.Background(), Spec{Command: cmd, Dir: t.TempDir()})
	if res.Outcome != Output {
		t.Fatalf("Outcome = %q (err %v)", res.Outcome, res.Err)
	}
	out := res.Output
	if !strings.HasPrefix(out, "STARTxxx") || !strings.HasSuffix(out, "xxxEND") {
		t.Fatalf("head/tail not kept: %q ... %q", out[:20], out[len(out)-20:])
	}
	total := 300000 + len("START") + len("END")
	cut := total - MaxOutput
	if !strings.Contains(out, "[... "+strconv.Itoa(cut)+" bytes cut from the middle of the output ...]") {
		t.Fatalf("marker missing or wrong, want %d bytes cut", cut)
	}
	if len(out) > MaxOutput+100 {
		t.Fatalf("output is %d bytes, want about %d", len(out), MaxOutput)
	}
}

func TestCaptureWrites(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		limit  int
		want   string
	}{
		{"under limit", []string{"ab", "cd"}, 10, "abcd"},
		{"exactly limit", []string{"abcdefghij"}, 10, "abcdefghij"},
		{"one big write", []string{"abcdefghijkl"}, 10, "abcde\n[... 2 bytes cut from the middle of the output ...]\nhijkl"},
		{"many small writes", []string{"ab", "cd", "ef", "gh", "ij", "kl", "mn"}, 10, "abcde\n[... 4 bytes cut from the middle of the output ...]\njklmn"},
		{"utf8 edges not split", []string{"aaaé", "xxxxxxx", "ébbb"}, 8, "aaa\n[... 11 bytes cut from the middle of the output ...]\nbbb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCapture(tt.limit)
			for _, s := range tt.chunks {
				c.Write([]byte(s))
			}
			if got := c.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
