package depsprobe

import (
	_ "fyne.io/systray"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/cespare/xxhash/v2"
	_ "github.com/chromedp/chromedp"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/godbus/dbus/v5"
	_ "github.com/google/uuid"
	_ "github.com/ollama/ollama/api"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/openai/openai-go/v3/option"
	_ "github.com/openai/openai-go/v3/packages/ssestream"
	_ "github.com/sabhiram/go-gitignore"
	_ "github.com/spf13/cobra"
	_ "github.com/zalando/go-keyring"
	_ "golang.org/x/sys/unix"
)
