//go:build darwin && cgo

package depsprobe

import _ "github.com/fsnotify/fsevents"
