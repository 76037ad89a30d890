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
