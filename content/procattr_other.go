//go:build !linux

package content

import "syscall"

// childAttr puts the child in a process group of its own, so a kill
// reaches pdftotext under it. (No parent-death signal outside Linux: an
// orphan ends itself at its time limit, see applyChildLimits.)
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
