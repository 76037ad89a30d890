DESC TABLE information_schema.region_info;

CREATE TABLE region_info_case (a INT PRIMARY KEY, ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (a) (a < 10, a >= 10) WITH ('compaction.twcs.time_window' = '90m', sst_format = 'flat');

INSERT INTO region_info_case VALUES (1, 1), (2, 2), (20, 3);

ADMIN FLUSH_TABLE('region_info_case');

SELECT region_number, region_group, region_sequence, state, role, writable, committed_sequence, flushed_sequence, compaction_time_window, region_options, sst_format, manifest_version > 0 AS has_manifest FROM information_schema.region_info WHERE region_id IN (SELECT region_id FROM information_schema.region_peers WHERE table_name = 'region_info_case') ORDER BY region_id;

DROP TABLE region_info_case;
