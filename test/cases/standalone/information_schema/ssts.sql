DESC TABLE information_schema.ssts_manifest;

DESC TABLE information_schema.ssts_storage;

DESC TABLE information_schema.ssts_index_meta;

CREATE TABLE sst_case (a INT PRIMARY KEY INVERTED INDEX, b STRING, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a) (a < 1000, a >= 1000 AND a < 2000, a >= 2000);

INSERT INTO sst_case VALUES (500, 'a', 1), (1500, 'b', 2), (2500, 'c', 3), (2600, 'd', 4);

ADMIN FLUSH_TABLE('sst_case');

SELECT m.region_number, m.region_group, m.region_sequence, m.index_version, m.level, m.num_rows, m.num_row_groups, m.num_series, m.min_ts, m.max_ts, m.visible, m.region_id = m.origin_region_id AS same_region, m.file_path LIKE m.table_dir || '%.parquet' AS in_table_dir FROM information_schema.ssts_manifest m JOIN information_schema.tables t ON m.table_id = t.table_id WHERE t.table_name = 'sst_case' ORDER BY m.region_number;

SELECT count(*) AS files FROM information_schema.ssts_storage s WHERE s.file_path IN (SELECT m.file_path FROM information_schema.ssts_manifest m JOIN information_schema.tables t ON m.table_id = t.table_id WHERE t.table_name = 'sst_case');

SELECT i.region_number, i.index_type, i.target_type, i.target_key, i.target_json, i.meta_json, i.index_file_path LIKE i.table_dir || '%.invidx' AS in_table_dir, i.blob_size > 0 AS has_blob FROM information_schema.ssts_index_meta i JOIN information_schema.tables t ON i.table_id = t.table_id WHERE t.table_name = 'sst_case' ORDER BY i.region_number;

SELECT count(*) AS files FROM information_schema.ssts_storage s WHERE s.file_path IN (SELECT i.index_file_path FROM information_schema.ssts_index_meta i JOIN information_schema.tables t ON i.table_id = t.table_id WHERE t.table_name = 'sst_case');

INSERT INTO sst_case VALUES (501, 'e', 5);

ADMIN FLUSH_TABLE('sst_case');

ADMIN COMPACT_TABLE('sst_case');

SELECT m.region_number, m.level, m.num_rows, m.min_ts, m.max_ts FROM information_schema.ssts_manifest m JOIN information_schema.tables t ON m.table_id = t.table_id WHERE t.table_name = 'sst_case' ORDER BY m.region_number, m.level;

DROP TABLE sst_case;
