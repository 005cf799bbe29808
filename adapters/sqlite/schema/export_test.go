package schema

// ViewDDL exposes viewDDL to the tests.
var ViewDDL = viewDDL
