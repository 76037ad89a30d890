-- DataFusion's aggregate aliases, shown by their canonical names.
CREATE TABLE agg_alias(x DOUBLE, y DOUBLE, ts TIMESTAMP TIME INDEX);

INSERT INTO agg_alias VALUES (1, 2, 1), (2, 4.5, 2), (4, 7, 3), (8, 9, 4);

SELECT covar(x, y), var(x), var_sample(y), var_population(x) FROM agg_alias;

SELECT covar_samp(x, y) = covar(x, y) AS same_covar, var_samp(x) = var(x) AS same_var FROM agg_alias;

SELECT stddev_samp(x), stddev(x) FROM agg_alias;

DROP TABLE agg_alias;
