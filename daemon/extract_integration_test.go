package daemon_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tend-agent/tend/content"
	"github.com/tend-agent/tend/content/contenttest"
)

// The real tend binary answers as the extraction child when
// content.EnvExtract is set: it reads the file on standard input and
// prints the result, whatever its arguments say.
func TestTendBinaryRunsAsExtractionChild(t *testing.T) {
	bin := buildTend(t)
	p := filepath.Join(t.TempDir(), "a.pdf")
	if err := os.WriteFile(p, contenttest.PDF([]string{"hello from page one"}, map[string]string{"Title": "T"}), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), content.EnvExtract+"={}")
	cmd.Stdin = f
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tend in extract mode: %v", err)
	}
	var r content.Result
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("tend in extract mode printed %q: %v", out, err)
	}
	if r.MIME != "application/pdf" || r.Get("pages") != "1" || r.Get("title") != "T" {
		t.Fatalf("result %+v", r)
	}
}
