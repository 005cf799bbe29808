package domain

// Blob stands for a BLOB value of that many bytes. Tools never show a
// blob's bytes (a cell reads `<blob N bytes>`), so adapters need not copy
// them out of SQLite.
type Blob int
