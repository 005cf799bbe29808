package app

// MaxOwedRows is the bound of the late audit rows' backlog, for tests.
const MaxOwedRows = maxOwedRows
