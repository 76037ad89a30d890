-- SHOW CREATE VIEW and information_schema.views: the definition as GreptimeDB prints it
CREATE TABLE view_s1 (a INT, b STRING, c TIMESTAMP TIME INDEX);

INSERT INTO view_s1 VALUES (41, 'hello', 1), (42, 'world', 2), (43, 'tsdb', 3);

create view view_sv1 as select a,b from view_s1;

SHOW CREATE VIEW view_sv1;

CREATE OR REPLACE VIEW view_sv1 AS SELECT a, b, c FROM view_s1 WHERE a>42;

SHOW CREATE VIEW view_sv1;

SELECT * FROM view_sv1;

create view view_sv2 as
  select count(*) as n, max(view_s1.a) from view_s1
  inner join view_sv1 on view_s1.a = view_sv1.a
  where view_s1.b like 'h%' or view_s1.a in (1, -2);

SHOW CREATE VIEW view_sv2;

SELECT table_catalog, table_schema, table_name, view_definition, check_option, is_updatable, definer, security_type, character_set_client, collation_connection FROM information_schema.views ORDER BY table_name;

DROP VIEW view_sv1;

DROP VIEW view_sv2;

SHOW CREATE VIEW view_sv1;

SELECT * FROM information_schema.views;

DROP TABLE view_s1;
