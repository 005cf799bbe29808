// Package ports declares the small interfaces the core (package app) needs
// from the outside world, plus the inbound port that driving adapters call.
// Implementations live in adapters/; nothing here has behaviour.
package ports
