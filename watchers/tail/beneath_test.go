//go:build unix

package tail

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tend-agent/tend/internal/beneath"
)

// The model can write the watched folder: it deletes the tailed log and puts
// a symbolic link to a file outside in its place (file_copy copies links as
// links). The tail must never read outside lines into a verdict, which goes
// into the next prompt.
func TestTailNeverFollowsALinkOutOfTheFolder(t *testing.T) {
	for _, walk := range []bool{false, true} {
		t.Run(map[bool]string{false: "openat2", true: "walk"}[walk], func(t *testing.T) {
			beneath.ForceWalk(t, walk)
			base := t.TempDir()
			root, outside := filepath.Join(base, "watched"), filepath.Join(base, "outside")
			os.MkdirAll(filepath.Join(root, "logs"), 0o755)
			os.MkdirAll(outside, 0o755)
			secret := filepath.Join(outside, "secret.log")
			if err := os.WriteFile(secret, []byte("ERROR outside secret one\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(root, "logs", "app.log")
			if err := os.WriteFile(log, []byte("start\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := New(Config{Path: log, Root: root, Fail: regexp.MustCompile("ERROR")})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			poll := func(at time.Duration) *Verdict {
				t.Helper()
				v, _ := f.Poll(t0.Add(at)) // an error is fine; outside lines are not
				if v != nil {
					for _, l := range append([]string{v.Line}, v.LastLines...) {
						if strings.Contains(l, "outside") {
							t.Fatalf("the tail read a line from outside the folder: %q", l)
						}
					}
				}
				return v
			}
			poll(0)
			appendTo("ERROR inside\n")(t, log)
			if v := poll(time.Second); v == nil || v.Line != "ERROR inside" {
				t.Fatalf("the inside failure line was not seen: %+v", v)
			}
			// The attack: the log becomes a link to the outside file, then
			// the outside file grows.
			remove(t, log)
			if err := os.Symlink(secret, log); err != nil {
				t.Fatal(err)
			}
			poll(2 * time.Second)
			appendTo("ERROR outside secret two\n")(t, secret)
			poll(3 * time.Second)
			// A relative link out, and a link on a folder of the path.
			remove(t, log)
			if err := os.Symlink("../../outside/secret.log", log); err != nil {
				t.Fatal(err)
			}
			poll(4 * time.Second)
			os.RemoveAll(filepath.Join(root, "logs"))
			if err := os.Symlink(outside, filepath.Join(root, "logs")); err != nil {
				t.Fatal(err)
			}
			os.Rename(secret, filepath.Join(outside, "app.log"))
			poll(5 * time.Second)
			appendTo("ERROR outside secret three\n")(t, filepath.Join(outside, "app.log"))
			poll(6 * time.Second)
			// A real log in its place again is followed.
			os.Remove(filepath.Join(root, "logs"))
			os.MkdirAll(filepath.Join(root, "logs"), 0o755)
			if err := os.WriteFile(log, []byte("ERROR back inside\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if v := poll(7 * time.Second); v == nil || v.Line != "ERROR back inside" {
				t.Fatalf("the new log in the folder was not followed: %+v", v)
			}
		})
	}
}
