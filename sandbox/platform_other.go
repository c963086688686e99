//go:build !darwin

package sandbox

const isDarwin = false
