package content

import "syscall"

// childAttr puts the child in a process group of its own (so a kill
// reaches pdftotext under it) and kills it if the daemon dies first.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
