package content

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// EnvExtract, set in the environment of the tend binary, makes it run as
// an extraction child instead of its usual self (see RunChildIfAsked).
const EnvExtract = "TEND_CONTENT_EXTRACT"

// Limits of one extraction child.
const (
	ChildTimeout   = 10 * time.Second
	ChildMemory    = 512 << 20 // RLIMIT_DATA of the child, bytes
	maxChildOutput = MaxText*2 + 64<<10
)

// Limits can be changed by tests (a smaller memory limit, a shorter
// time) and by the daemon's configuration.
type Limits struct {
	Timeout time.Duration
	Memory  uint64
}

// DefaultLimits are the limits the daemon uses.
var DefaultLimits = Limits{Timeout: ChildTimeout, Memory: ChildMemory}

// RunChildIfAsked runs the extraction child and exits when the process was
// started as one; otherwise it returns at once. Call it first thing in
// main, and in TestMain of test binaries that extract. The file to read
// is standard input; the Result goes to standard output as JSON.
func RunChildIfAsked() {
	if os.Getenv(EnvExtract) == "" {
		return
	}
	os.Exit(childMain())
}

func childMain() int {
	applyChildLimits()
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		fmt.Fprintln(os.Stderr, "tend extract: standard input must be a regular file")
		return 2
	}
	res := Extract(os.Stdin, st.Size)
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return 1
	}
	return 0
}

// applyChildLimits binds the child to the limits the daemon passed in
// EnvExtract.
func applyChildLimits() {
	var lim Limits
	if err := json.Unmarshal([]byte(os.Getenv(EnvExtract)), &lim); err != nil || lim.Memory == 0 {
		lim = DefaultLimits
	}
	// The memory limit binds this process and whatever it starts
	// (pdftotext). It is RLIMIT_DATA, not RLIMIT_AS: the Go runtime
	// reserves about 1.6 GiB of address space it never touches, so an
	// address-space limit of 512 MiB kills even an idle child (measured
	// with Go 1.26), while the data limit counts the memory really mapped
	// for writing. RLIMIT_AS stays as a backstop well above the
	// reservation. The Go runtime is told too, so it collects before it
	// hits the wall, and a deep recursion fails early instead of eating it.
	unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: lim.Memory, Max: lim.Memory})
	unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: lim.Memory + 4<<30, Max: lim.Memory + 4<<30})
	debug.SetMemoryLimit(int64(lim.Memory) / 2)
	debug.SetMaxStack(64 << 20)
	// The daemon kills the child at the time limit; should the daemon be
	// gone (no parent-death signal outside Linux), the child ends itself.
	if lim.Timeout > 0 {
		time.AfterFunc(lim.Timeout+time.Second, func() { os.Exit(3) })
	}
}

// slots bounds the extraction children running at once.
var slots = make(chan struct{}, max(2, min(runtime.NumCPU(), 4)))

// Run extracts f (an already-opened regular file of size bytes) in a child
// process: the running binary started again with EnvExtract set, f as its
// standard input. The child is killed at the time limit and bounded in
// memory; what it could not read comes back as a Result with Failed set,
// never as an error of the caller.
func Run(ctx context.Context, f *os.File, size int64, lim Limits) Result {
	res := Result{MIME: "application/octet-stream", Kind: "file", Size: size}
	exe, err := os.Executable()
	if err != nil {
		res.Failed = "the file's content could not be read: tend cannot find its own program to start the reader (" + err.Error() + ")"
		return res
	}
	if lim.Timeout == 0 {
		lim = DefaultLimits
	}
	limJSON, _ := json.Marshal(lim)
	// At most a few children at once, whatever the number of watchers:
	// each may use its whole memory limit.
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-ctx.Done():
		res.Failed = "the file's content was not read: the run was stopped"
		return res
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	// The arguments are for a test binary without the hook: it then runs
	// no test and prints nothing we could take for a result.
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$", "-test.count=1")
	cmd.Env = append(os.Environ(), EnvExtract+"="+string(limJSON))
	cmd.Stdin = f
	cmd.SysProcAttr = childAttr()
	// Kill the whole group: pdftotext runs under the child.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out := capped{max: maxChildOutput, stop: cancel}
	errb := capped{max: 4096}
	cmd.Stdout, cmd.Stderr = &out, &errb
	started.Add(1)
	err = cmd.Run()
	if parent.Err() != nil {
		res.Failed = "the file's content was not read: the run was stopped"
		return res
	}
	if out.over {
		res.Failed = "the file's content could not be read: the reader produced more output than allowed"
		return res
	}
	if ctx.Err() != nil {
		res.Failed = fmt.Sprintf("the file's content could not be read: reading it took longer than %s, so it was stopped (the file may be damaged or built to stall readers)", lim.Timeout)
		return res
	}
	if err != nil {
		res.Failed = "the file's content could not be read: " + childFailure(err, errb.buf.String(), lim)
		return res
	}
	var got Result
	if jerr := json.Unmarshal(out.buf.Bytes(), &got); jerr != nil || got.MIME == "" {
		res.Failed = "the file's content could not be read: the reader gave no result"
		return res
	}
	return got
}

// childFailure says in one line why the child died.
func childFailure(err error, stderr string, lim Limits) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("the reader was killed by signal %s (the file may be damaged or built to crash readers)", ws.Signal())
		}
		if strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory") || strings.Contains(stderr, "newosproc") || strings.Contains(stderr, "cannot map pages") || strings.Contains(stderr, "pthread_create failed") || strings.Contains(stderr, "std::bad_alloc") {
			return fmt.Sprintf("reading it needed more than %d MiB of memory, so it was stopped (the file may be damaged or built to exhaust readers)", lim.Memory>>20)
		}
		if strings.Contains(stderr, "stack exceeds") {
			return "its structure nests too deeply to read (the file may be damaged or built to crash readers)"
		}
		first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
		if first = cutUTF8(oneLine(first), 160); first != "" {
			first = ": " + first
		}
		return fmt.Sprintf("the reader failed (exit status %d%s; the file may be damaged)", ee.ExitCode(), first)
	}
	return "the reader could not be started: " + oneLine(err.Error())
}

// capped is a buffer that keeps at most max bytes and notes overflow. It
// does not embed bytes.Buffer: io.Copy would use the buffer's ReadFrom
// and bypass the cap.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
	stop func()
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); len(p) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		if c.stop != nil {
			c.stop() // kills the child, which would block on a full pipe
		}
		return 0, errors.New("output limit reached")
	}
	return c.buf.Write(p)
}

var _ io.Writer = (*capped)(nil)
