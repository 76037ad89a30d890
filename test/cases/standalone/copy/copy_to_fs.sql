CREATE TABLE demo(host string, cpu DOUBLE, memory DOUBLE, ts TIMESTAMP TIME INDEX, ts2 DATE DEFAULT '2022-06-15');

insert into demo(host, cpu, memory, ts) values ('host1', 66.6, 1024, 1655276557000), ('host2', 88.8,  333.3, 1655276558000);

insert into demo(host, cpu, memory, ts) values ('host3', 111.1, 444.4, 1722077263000);

COPY demo TO 'copy_to_fs/demo.parquet' WITH (start_time='2022-06-15 07:02:37', end_time='2022-06-15 07:02:38');

COPY demo TO 'copy_to_fs/demo.csv' WITH (format='csv', start_time='2022-06-15 07:02:37', end_time='2022-06-15 07:02:38');

COPY demo TO 'copy_to_fs/demo.json' WITH (format='json', start_time='2022-06-15 07:02:37', end_time='2022-06-15 07:02:38');

COPY demo TO 'copy_to_fs/all.parquet';

COPY public.demo TO 'copy_to_fs/all.csv' WITH (FORMAT='CSV');

COPY demo TO 'copy_to_fs/from_2023.json' WITH (format='json', start_time='2023-01-01 00:00:00');

COPY demo TO 'copy_to_fs/none.parquet' WITH (start_time='2030-01-01 00:00:00');

COPY demo TO 'copy_to_fs/demo.xlsx' WITH (format='xlsx');

COPY demo TO 'copy_to_fs/demo.parquet' WITH (start_time='yesterday');

COPY demo TO 'copy_to_fs/';

COPY not_exists TO 'copy_to_fs/not_exists.parquet';

COPY demo TO 'copy_to_fs/demo.parquet' LIMIT 1;

COPY (select host, cpu, ts from demo where host = 'host2') TO 'copy_to_fs/query.parquet';

COPY (select host, cpu, ts, ts2 from demo where host = 'host2') TO 'copy_to_fs/query.csv' WITH (format='csv');

COPY (select host, cpu from demo order by host) TO 'copy_to_fs/query.json' WITH (format='json');

CREATE TABLE from_query(host string, cpu double, ts TIMESTAMP TIME INDEX);

COPY from_query FROM 'copy_to_fs/query.parquet';

COPY from_query FROM 'copy_to_fs/query.csv' WITH (format='csv');

SELECT * FROM from_query;

COPY (select * from not_exists) TO 'copy_to_fs/nothing.parquet';

COPY (select 1) TO '/tmp/query.parquet';

drop table from_query;

COPY DATABASE public TO 'copy_to_fs/db/' LIMIT 2;

drop table demo;
