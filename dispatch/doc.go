// Package dispatch turns a detected change into work done by a language
// model: it builds the grounded prompt, runs the agent loop against a
// provider (a local Ollama or any OpenAI-compatible server), keeps API keys
// in the OS keyring, and records every run in the watcher's chat session
// (sessions/{watcherID}.jsonl).
//
// dispatch does not know the file tools themselves: the agent loop talks to
// a Toolbox, which the sandbox package provides.
package dispatch
