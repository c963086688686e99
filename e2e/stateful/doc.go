// Package stateful holds tend's stateful randomized test: the real daemon
// in-process (real kernel watcher, runner and sandbox, fake clock) driven
// by pgregory.net/rapid through random sequences of file changes,
// commands, restarts and model faults, with tend's promises checked at the
// end of each sequence. It also holds the regression test for a file that
// is still being written. It has no code outside its tests.
package stateful
