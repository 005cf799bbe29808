package sqlite

// WholeTableDelete exposes wholeTableDelete to the tests.
var WholeTableDelete = wholeTableDelete
