// Package keyringtest holds the integration test of dispatch's key store
// against a real Secret Service. It is a package of its own because the
// keyring library's mock, used by dispatch's unit tests, cannot be undone
// within one test binary. Run it with
//
//	scripts/with-secret-service.sh go test ./dispatch/keyringtest/
package keyringtest
