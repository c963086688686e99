// Package check runs a watcher's script check: a shell command (run with
// sh -c) or a stored script file, run in the watched folder on the watcher's
// schedule.
//
// What the check prints decides what happens next:
//
//   - it exits 0 and prints nothing on standard output: Outcome "quiet",
//     nothing happens;
//   - it exits 0 and prints something: Outcome "output", that output (cut to
//     100 KiB, keeping head and tail) goes to the model with the instructions;
//   - it exits non-zero: Outcome "failed", recorded, not sent; the reason
//     quotes the end of standard error;
//   - it outlives its timeout (2 minutes by default, 30 at most): Outcome
//     "timeout"; a cancelled context gives "cancelled". In both cases the
//     whole process group is killed, so background children die too.
//
// The check sees TEND_WATCHER_NAME, TEND_WATCHER_STATE_DIR (a scratch folder
// created for it and kept between runs) and TEND_WATCHER_LAST_RUN (RFC 3339,
// empty the first time). It inherits the daemon's environment except
// OPENAI_API_KEY, which tend may hold as a key fallback.
package check
