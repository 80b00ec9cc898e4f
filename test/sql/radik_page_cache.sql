-- radik_page_cache: a table that PostgreSQL reads through its ring of buffers (one larger than a
-- quarter of shared_buffers) has its all-visible pages that no shared buffer holds copied
-- straight from the operating system's page cache (radik_page_source.c).  Whether this table
-- goes through the ring depends on the server's shared_buffers: where it does, EXPLAIN ANALYZE
-- counts the copies; either way every answer is compared with PostgreSQL's.  The copies under
-- concurrent writers, VACUUM and checkpoints: test/t/003_radik_page_cache.pl.
LOAD 'radik';
CREATE TABLE radik_pc WITH (fillfactor = 90) AS
	SELECT i::int8 AS id, (i::int8 * 7919 % 1000003)::float8 AS v, i % 100 AS grp,
		   md5(i::text) AS name
	FROM generate_series(1, 500000) i;
ALTER TABLE radik_pc SET (parallel_workers = 2);
CREATE INDEX radik_pc_id ON radik_pc (id);
VACUUM ANALYZE radik_pc;

-- Pages are copied where the table is read through the ring, and not otherwise.
SELECT (radik_analyzed_scan('SELECT * FROM radik_pc ORDER BY v DESC, id LIMIT 10')
		->> 'Pages From Page Cache') IS NOT NULL =
	   (pg_relation_size('radik_pc') > pg_size_bytes(current_setting('shared_buffers')) / 4)
	   AS copies_where_the_ring_is;
SET radik.page_cache_reads = off;
SELECT radik_analyzed_scan('SELECT * FROM radik_pc ORDER BY v DESC, id LIMIT 10')
	   ->> 'Pages From Page Cache' AS copies_when_off;
RESET radik.page_cache_reads;

SELECT q, radik_compare(q) AS answer
FROM (VALUES
	('SELECT * FROM radik_pc ORDER BY v DESC, id LIMIT 10'),
	('SELECT id, name FROM radik_pc WHERE grp < 10 AND name LIKE ''a%'' ORDER BY v, id LIMIT 10'),
	('SELECT id, v FROM radik_pc ORDER BY abs(v - 500000), id LIMIT 10')
) t(q);

-- Rows updated through the index (their pages stay in shared buffers; each new row version on
-- its old row's page, which fillfactor left room for) and the table vacuumed: the updated rows,
-- all-visible again in shared buffers and nowhere else, are the smallest keys.
SET enable_seqscan = off;
UPDATE radik_pc SET v = -v - 1 WHERE id = ANY (ARRAY(SELECT generate_series(997, 500000, 997)::int8));
RESET enable_seqscan;
VACUUM radik_pc;
SELECT radik_compare('SELECT id, v FROM radik_pc ORDER BY v, id LIMIT 10') AS updated;

-- Two workers, each copying the pages it takes.
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT (radik_analyzed_scan('SELECT * FROM radik_pc ORDER BY v DESC, id LIMIT 10')
		->> 'Workers Launched')::int > 0 AS workers_ran;
SELECT q, radik_compare(q) AS answer
FROM (VALUES
	('SELECT * FROM radik_pc ORDER BY v DESC, id LIMIT 10'),
	('SELECT id, v FROM radik_pc ORDER BY v, id LIMIT 10')
) t(q);
RESET min_parallel_table_scan_size;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET max_parallel_workers_per_gather;
DROP TABLE radik_pc;
