CREATE TABLE comment_table_test (
	pk INT,
	val DOUBLE,
	ts TIMESTAMP TIME INDEX,
	PRIMARY KEY(pk)
);

COMMENT ON TABLE comment_table_test IS 'table level description';

SHOW CREATE TABLE comment_table_test;

SELECT table_comment FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'comment_table_test';

COMMENT ON TABLE comment_table_test IS NULL;

SHOW CREATE TABLE comment_table_test;

SELECT table_comment FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'comment_table_test';

COMMENT ON COLUMN comment_table_test.val IS 'value column description';

SHOW CREATE TABLE comment_table_test;

SELECT column_comment FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'comment_table_test' AND column_name = 'val';

SHOW FULL COLUMNS FROM comment_table_test LIKE 'val';

COMMENT ON COLUMN comment_table_test.val IS NULL;

SHOW CREATE TABLE comment_table_test;

SELECT column_comment FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'comment_table_test' AND column_name = 'val';

COMMENT ON COLUMN comment_table_test.nope IS 'x';

COMMENT ON TABLE nope IS 'x';

COMMENT ON COLUMN nope IS 'x';

DROP TABLE comment_table_test;
