-- Insert, index, update and aggregate: the database workload of traces/real
-- (see traces/README.md). Run as: sqlite3 :memory: ".read sqlite_index.sql"
PRAGMA cache_size = -16384;
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, score REAL, blob TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
INSERT INTO items (name, grp, score, blob)
SELECT printf('item-%d', i), i % 97, (i * 7919) % 1000 / 10.0, hex(randomblob(16 + i % 64)) FROM n;
CREATE INDEX items_grp ON items (grp, score);
CREATE INDEX items_name ON items (name);
UPDATE items SET score = score * 1.5, blob = blob || 'x' WHERE grp % 3 = 0;
DELETE FROM items WHERE grp = 13;
SELECT grp, count(*), avg(score), max(length(blob)) FROM items GROUP BY grp ORDER BY 3 DESC LIMIT 5;
SELECT count(*) FROM items a JOIN items b ON a.grp = b.grp AND a.id = b.id + 97;
