SHOW TIMEZONE;

SHOW TIME ZONE;

SHOW VARIABLES time_zone;

SHOW TABLES;

SHOW FULL TABLES LIKE 'num%';

SELECT * FROM numbers LIMIT 5;

SELECT count(*), min(number), max(number) FROM numbers;

SELECT number FROM numbers WHERE number > 97 ORDER BY number;

DESC TABLE numbers;

DESC TABLE information_schema.schemata;

SELECT count(*), max(number) FROM (SELECT * FROM numbers LIMIT 1000);

SELECT count(*), min(number), max(number) FROM (SELECT number FROM numbers LIMIT 200 OFFSET 10);

SELECT sum(number) FROM numbers LIMIT 1000;

SELECT count(*) FROM (SELECT * FROM numbers WHERE number > 5 LIMIT 200);

SELECT count(*) FROM (SELECT * FROM numbers ORDER BY number LIMIT 300);

SELECT count(*) FROM (SELECT number FROM numbers LIMIT 10) a, (SELECT number FROM numbers LIMIT 3000) b;

CREATE TABLE from_numbers (n INT, ts TIMESTAMP TIME INDEX);

INSERT INTO from_numbers SELECT number, number * 1000 FROM numbers LIMIT 2000;

SELECT count(*), max(n) FROM from_numbers;

DROP TABLE from_numbers;
