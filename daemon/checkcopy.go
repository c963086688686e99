package daemon

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tend-agent/tend/internal/atomicfile"
	"github.com/tend-agent/tend/watchers"
)

// A check command that runs a script inside the watched folder would run
// whatever the model last wrote there: the model can write the folder. So
// at add and edit such a script is copied into TEND_HOME/checks/ID/ (which
// the model can never reach) and the command is rewritten to run the copy,
// with the rest of its arguments. The script is the command's first word
// (./check.sh --quick), or the first argument of an interpreter
// (sh check.sh, python3 tools/check.py). Changing the script later takes
// `tend edit --check` again; files the script itself reads from the folder
// remain the model's to write.

// unsafeName matches what is left out of a stored script's name.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._+-]+`)

// maxCheckScript bounds the script copied.
const maxCheckScript = 16 << 20

// interpreters run the script named by their first argument.
var interpreters = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true,
	"python": true, "python3": true, "perl": true, "ruby": true, "node": true,
	"php": true, "Rscript": true, ".": true, "source": true,
}

// copyCheckScript copies a check script found inside the folder (see
// above) and points def.Check at the copy. It leaves other commands alone.
func (d *Daemon) copyCheckScript(def *watchers.Definition) error {
	if strings.TrimSpace(def.Check) == "" || def.Path == "" || def.ID == "" {
		return nil
	}
	words := commandWords(def.Check)
	i := 0
	for i < len(words) && words[i].assignment {
		i++
	}
	if i >= len(words) {
		return nil
	}
	var cands []int
	if strings.Contains(words[i].text, "/") {
		cands = append(cands, i) // a bare name is looked up on PATH
	}
	if interpreters[filepath.Base(words[i].text)] && i+1 < len(words) {
		cands = append(cands, i+1)
	}
	for _, c := range cands {
		w := words[c]
		src, ok := d.scriptInFolder(w.text, def.Path)
		if !ok {
			continue
		}
		dst, err := d.storeScript(def.ID, src)
		if err != nil {
			return err
		}
		def.Check = def.Check[:w.start] + shellQuote(dst) + def.Check[w.end:]
		return nil
	}
	return nil
}

// scriptInFolder resolves a command word to a regular file inside folder
// (symlinks resolved), never one of tend's own copies.
func (d *Daemon) scriptInFolder(word, folder string) (string, bool) {
	if word == "" || strings.ContainsAny(word, "$`*?[") {
		return "", false
	}
	if rest, ok := strings.CutPrefix(word, "~/"); ok {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		word = filepath.Join(h, rest)
	}
	if !filepath.IsAbs(word) {
		// A bare name ("check") is looked up on PATH by the shell, unless
		// it is a file right here and an interpreter runs it ("sh check").
		word = filepath.Join(folder, word)
	}
	real, err := filepath.EvalSymlinks(word)
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	rf, err := filepath.EvalSymlinks(folder)
	if err != nil {
		return "", false
	}
	if _, in := inside(rf, real); !in {
		return "", false
	}
	if rh, err := filepath.EvalSymlinks(d.cfg.Home.Dir); err == nil {
		if _, own := inside(rh, real); own {
			return "", false // already tend's copy
		}
	}
	return real, true
}

// storeScript copies src into TEND_HOME/checks/ID/, keeping its name and
// its execute bits, and returns the copy's path.
func (d *Daemon) storeScript(id, src string) (string, error) {
	f, err := os.Open(src)
	if err != nil {
		return "", userErrorf("reading the check script %s: %v", src, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", userErrorf("reading the check script %s: %v", src, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxCheckScript+1))
	if err != nil {
		return "", userErrorf("reading the check script %s: %v", src, err)
	}
	if len(data) > maxCheckScript {
		return "", userErrorf("the check script %s is larger than %d MiB: tend copies the script out of the folder to run it; give a smaller script", src, maxCheckScript>>20)
	}
	dir := filepath.Join(d.cfg.Home.Checks(), id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	dst := filepath.Join(dir, unsafeName.ReplaceAllString(filepath.Base(src), "_"))
	if err := atomicfile.WriteFile(dst, data, 0o600|fi.Mode().Perm()&0o100); err != nil {
		return "", fmt.Errorf("storing the check script: %w", err)
	}
	return dst, nil
}

// removeScripts deletes a removed watcher's stored check scripts.
func (d *Daemon) removeScripts(id string) {
	if id != "" {
		os.RemoveAll(filepath.Join(d.cfg.Home.Checks(), id))
	}
}

// word is one word of a command line: its text without quotes and where
// it stands in the line.
type word struct {
	text       string
	start, end int
	assignment bool
}

// commandWords splits the start of a shell command into words, up to the
// first operator (; | & < > ( )). Quotes are removed; anything fancier
// (escapes, expansions) is left to the shell, and such a word is never
// taken for a script.
func commandWords(cmd string) []word {
	var out []word
	i := 0
	for i < len(cmd) {
		for i < len(cmd) && (cmd[i] == ' ' || cmd[i] == '\t') {
			i++
		}
		if i >= len(cmd) || strings.IndexByte(";|&<>()\n", cmd[i]) >= 0 {
			break
		}
		start := i
		var b strings.Builder
		for i < len(cmd) && cmd[i] != ' ' && cmd[i] != '\t' && strings.IndexByte(";|&<>()\n", cmd[i]) < 0 {
			if q := cmd[i]; q == '\'' || q == '"' {
				j := strings.IndexByte(cmd[i+1:], q)
				if j < 0 {
					return out // unbalanced: the shell will say
				}
				b.WriteString(cmd[i+1 : i+1+j])
				i += j + 2
				continue
			}
			b.WriteByte(cmd[i])
			i++
		}
		text := b.String()
		eq := strings.IndexByte(text, '=')
		out = append(out, word{text: text, start: start, end: i,
			assignment: eq > 0 && len(out) == countAssignments(out) && isName(text[:eq])})
	}
	return out
}

func countAssignments(ws []word) int {
	n := 0
	for _, w := range ws {
		if w.assignment {
			n++
		}
	}
	return n
}

func isName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// shellQuote quotes a path for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
