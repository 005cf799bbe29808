// Package ports declares the small interfaces the core (package app) needs
// from the outside world, plus the inbound port that driving adapters call.
// Implementations live in adapters/, in-memory fakes for tests in test/fake;
// nothing here has behaviour beyond the context carriers.
package ports
