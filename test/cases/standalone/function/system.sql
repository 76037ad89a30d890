SELECT user();

SELECT current_user();

SELECT current_user;

SELECT session_user;

SELECT user() AS u, database() AS db;

SELECT version() = @@version AS same;

SELECT @@version_comment, @@time_zone;

SELECT @@session.time_zone AS tz;

SELECT @@no_such_variable;

SELECT 'a' || @@version_comment AS x;
