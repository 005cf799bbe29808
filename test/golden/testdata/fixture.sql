-- The fixture every golden case starts from: written once, read by
-- fixture() before the server opens the file. Every value is a literal or
-- computed from a counter, so the file, and each answer, is the same on
-- every run.
CREATE TABLE items (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  price REAL,
  tags TEXT
);
CREATE INDEX items_name ON items (name);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
INSERT INTO items (id, name, price, tags)
SELECT i, printf('item-%02d', i), i * 1.25, CASE WHEN i % 3 = 0 THEN NULL ELSE printf('t%d', i % 3) END FROM n;
CREATE TABLE notes (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  body TEXT,
  data BLOB
);
INSERT INTO notes (id, title, body, data) VALUES
  (1, 'plain', 'an apple a day', NULL),
  (2, 'quotes', 'she said "hi", then left', x'00ff10'),
  (3, 'comma, and newline', 'line one
line two', NULL),
  (4, 'empty', '', x''),
  (5, 'unicode', 'café — naïve', NULL);
