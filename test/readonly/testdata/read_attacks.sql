-- The read-tier attack corpus: statements an agent could send to read_query
-- to change the database, escape it or leave files behind. Each one must be
-- refused (a tool error) and change nothing. A block starts with a line
-- "-- attack: <name>" and runs to the next such line; {{dir}} is replaced by
-- the database's folder, so nothing could land anywhere else.

-- attack: insert
INSERT INTO customers (first_name, last_name, email, country) VALUES ('Eve', 'X', 'eve@example.com', 'Nowhere')
-- attack: insert select
INSERT INTO categories (name) SELECT name || ' copy' FROM categories
-- attack: insert returning
INSERT INTO categories (name) VALUES ('Hidden') RETURNING id
-- attack: with insert
WITH x (n) AS (SELECT 'Sneaky') INSERT INTO categories (name) SELECT n FROM x
-- attack: replace
REPLACE INTO products (id, name, category_id, price) VALUES (1, 'Free', 1, 0)
-- attack: upsert
INSERT INTO categories (id, name) VALUES (1, 'Books') ON CONFLICT (name) DO UPDATE SET name = 'Owned'
-- attack: update
UPDATE products SET price = 0
-- attack: update from
UPDATE orders SET total_amount = 0 FROM (SELECT 1) AS x
-- attack: with update
WITH x AS (SELECT 1) UPDATE orders SET total_amount = 0
-- attack: update returning
UPDATE customers SET email = 'x' RETURNING email
-- attack: delete
DELETE FROM order_items
-- attack: with delete
WITH x AS (SELECT 1) DELETE FROM orders WHERE id IN (SELECT * FROM x)
-- attack: delete returning
DELETE FROM customers RETURNING *
-- attack: dml inside a cte
WITH gone AS (DELETE FROM orders RETURNING id) SELECT count(*) FROM gone
-- attack: fts5 rebuild command
INSERT INTO product_search (product_search) VALUES ('rebuild')
-- attack: fts5 delete-all command
INSERT INTO product_search (product_search) VALUES ('delete-all')
-- attack: fts5 shadow table write
DELETE FROM product_search_data
-- attack: fts5 config write
INSERT INTO product_search_config VALUES ('automerge', 2)
-- attack: create table
CREATE TABLE loot (a)
-- attack: create table as select
CREATE TABLE loot AS SELECT * FROM customers
-- attack: create index
CREATE INDEX customers_country ON customers (country)
-- attack: create view
CREATE VIEW v AS SELECT 1
-- attack: create trigger
CREATE TRIGGER t AFTER INSERT ON orders BEGIN DELETE FROM orders; END
-- attack: create virtual table
CREATE VIRTUAL TABLE s2 USING fts5 (x)
-- attack: create virtual table with an unknown module
CREATE VIRTUAL TABLE f USING fileio (x)
-- attack: create temp table
CREATE TEMP TABLE scratch (a)
-- attack: create table in temp by name
CREATE TABLE temp.scratch (a)
-- attack: create temp view
CREATE TEMP VIEW tv AS SELECT * FROM customers
-- attack: create temp trigger
CREATE TEMP TRIGGER tt AFTER UPDATE ON customers BEGIN SELECT 1; END
-- attack: drop table
DROP TABLE order_items
-- attack: drop table if exists
DROP TABLE IF EXISTS products
-- attack: drop index
DROP INDEX orders_customer
-- attack: drop virtual table
DROP TABLE product_search
-- attack: alter rename
ALTER TABLE customers RENAME TO clients
-- attack: alter add column
ALTER TABLE customers ADD COLUMN password TEXT
-- attack: alter drop column
ALTER TABLE customers DROP COLUMN country
-- attack: alter rename column
ALTER TABLE customers RENAME COLUMN email TO mail
-- attack: reindex
REINDEX
-- attack: analyze
ANALYZE
-- attack: vacuum
VACUUM
-- attack: vacuum into a copy
VACUUM INTO '{{dir}}/copy.db'
-- attack: attach a new file
ATTACH '{{dir}}/evil.db' AS evil
-- attack: attach with a writable uri
ATTACH 'file:{{dir}}/evil.db?mode=rwc' AS evil
-- attack: attach memory
ATTACH ':memory:' AS m
-- attack: detach main
DETACH main
-- attack: begin
BEGIN
-- attack: begin immediate
BEGIN IMMEDIATE
-- attack: begin exclusive
BEGIN EXCLUSIVE
-- attack: commit
COMMIT
-- attack: end
END
-- attack: rollback
ROLLBACK
-- attack: savepoint
SAVEPOINT s
-- attack: release
RELEASE s
-- attack: journal mode to delete
PRAGMA journal_mode = DELETE
-- attack: journal mode to wal
PRAGMA journal_mode = WAL
-- attack: journal mode off, call form
PRAGMA journal_mode(OFF)
-- attack: user version
PRAGMA user_version = 42
-- attack: schema-qualified user version
PRAGMA main.user_version = 42
-- attack: application id
PRAGMA application_id = 7
-- attack: writable schema
PRAGMA writable_schema = ON
-- attack: writable schema, value-less
PRAGMA writable_schema
-- attack: query only off
PRAGMA query_only = 0
-- attack: query only off, call form
PRAGMA query_only(false)
-- attack: query only off through an empty value after an empty statement
;PRAGMA query_only = ''
-- attack: query only off behind a byte order mark
﻿PRAGMA query_only = ''
-- attack: busy timeout zeroed the same way
; PRAGMA busy_timeout = ''
-- attack: journal mode through an empty value after an empty statement
;PRAGMA journal_mode = ''
-- attack: vacuum after an empty statement
;VACUUM
-- attack: foreign keys on
PRAGMA foreign_keys = ON
-- attack: locking mode exclusive
PRAGMA locking_mode = EXCLUSIVE
-- attack: locking mode, value-less
PRAGMA locking_mode
-- attack: synchronous off
PRAGMA synchronous = OFF
-- attack: wal checkpoint
PRAGMA wal_checkpoint
-- attack: wal checkpoint truncate
PRAGMA wal_checkpoint(TRUNCATE)
-- attack: incremental vacuum
PRAGMA incremental_vacuum
-- attack: optimize
PRAGMA optimize
-- attack: auto vacuum
PRAGMA auto_vacuum = FULL
-- attack: page size
PRAGMA page_size = 512
-- attack: trusted schema
PRAGMA trusted_schema = ON
-- attack: temp store to a file
PRAGMA temp_store = FILE
-- attack: temp store directory
PRAGMA temp_store_directory = '{{dir}}'
-- attack: mmap size
PRAGMA mmap_size = 1073741824
-- attack: cell size check
PRAGMA cell_size_check = ON
-- attack: case sensitive like
PRAGMA case_sensitive_like = 1
-- attack: busy timeout
PRAGMA busy_timeout = 0
-- attack: load an extension
SELECT load_extension('{{dir}}/evil.so')
-- attack: load an extension in another case
SELECT LOAD_EXTENSION('{{dir}}/evil.so', 'init')
-- attack: write a file
SELECT writefile('{{dir}}/out.txt', 'x')
-- attack: second statement
SELECT 1; DROP TABLE customers
-- attack: second statement after a comment
SELECT 1; -- harmless
DELETE FROM orders
-- attack: second statement after a trailing semicolon
SELECT 1;;
-- attack: write hidden behind a block comment
/* just a read */ DELETE FROM orders
-- attack: write hidden behind a line comment
-- SELECT
DELETE FROM orders
-- attack: explain of a write
EXPLAIN DELETE FROM orders
-- attack: explain query plan of a write
EXPLAIN QUERY PLAN UPDATE products SET price = 0
-- attack: positional parameter
SELECT * FROM customers WHERE id = ?
-- attack: named parameter
DELETE FROM orders WHERE id = :id
-- attack: huge blob
SELECT zeroblob(1000000000)
-- attack: huge string
SELECT printf('%.*c', 1000000000, 'x')
-- attack: recursive blow-up of a string
WITH RECURSIVE r (s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r
