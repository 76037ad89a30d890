CREATE TABLE float_special (host STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX, d DOUBLE, f FLOAT, dflt DOUBLE DEFAULT 'NaN');

INSERT INTO float_special (host, ts, d, f) VALUES ('nan', 1, 'NaN', 'nan'), ('inf', 2, 'inf', 'Infinity'), ('-inf', 3, '-Infinity', '-inf'), ('one', 4, 1.5, 1.5);

INSERT INTO float_special (host, ts, d, f) VALUES ('expr', 5, 'NaN'::DOUBLE + 1, -('inf'::FLOAT));

INSERT INTO float_special (host, ts, d, f) VALUES ('bad', 6, 'nanx', 0);

SELECT host, d, f, dflt FROM float_special ORDER BY ts;

SELECT host, CAST(d AS STRING) AS d, CAST(f AS STRING) AS f, CAST(dflt AS STRING) AS dflt, isnan(d) AS is_nan, isinf(f) AS is_inf FROM float_special ORDER BY ts;

SELECT host FROM float_special WHERE d = 'inf'::DOUBLE;

SELECT host FROM float_special WHERE f < 0 ORDER BY host;

SELECT count(*) FROM float_special WHERE isnan(d);

SHOW CREATE TABLE float_special;

ADMIN FLUSH_TABLE('float_special');

SELECT host, CAST(d AS STRING) AS d, CAST(f AS STRING) AS f FROM float_special ORDER BY ts;

DROP TABLE float_special;
