SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'information_schema' AND table_name = 'process_list' ORDER BY ordinal_position;

SELECT catalog, schemas, query, client LIKE 'http[127.0.0.1:%]' AS http_client, elapsed_time >= 0 AS elapsed, start_timestamp <= now() AS started FROM information_schema.process_list;

SELECT count(*) FROM information_schema.process_list WHERE query LIKE 'KILL%';

KILL 999999999;

KILL QUERY 999999999;

KILL 'abc';

KILL QUERY 'abc';

KILL;
