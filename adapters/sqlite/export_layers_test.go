package sqlite

// WithoutAuthorizer returns o with no authorizer on agent connections:
// the first layer off, so a test proves the layers behind it hold alone.
func WithoutAuthorizer(o Options) Options {
	o.skipAuthorizer = true
	return o
}

// WithoutProgramCheck returns o without the read tier's EXPLAIN
// inspection: the second layer off, so a test proves the authorizer holds
// alone.
func WithoutProgramCheck(o Options) Options {
	o.skipProgramCheck = true
	return o
}
