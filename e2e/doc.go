// Package e2e holds tend's end-to-end tests: the real daemon with the real
// runner, sandbox and kernel watcher, driven through the local API client,
// with protocol-faithful stand-ins of the Ollama and OpenAI servers on
// loopback in place of a model. It has no code outside its tests.
package e2e
