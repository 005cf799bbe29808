// Package contract holds the contract suites every implementation of a port
// must pass. Each suite is an ordinary exported function taking a
// *testing.T and a factory (as testing/fstest.TestFS does), so every
// adapter's own _test.go runs the same checks against a fresh instance per
// subtest, and a new adapter proves itself by passing them.
package contract
