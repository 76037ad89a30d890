SELECT LOCATE('world', 'hello world');

SELECT LOCATE('xyz', 'hello world');

SELECT LOCATE('o', 'hello world', 5);

SELECT LOCATE('o', 'hello world', 6);

SELECT LOCATE('o', 'hello world', 0);

SELECT LOCATE('', 'hello');

SELECT LOCATE('', 'hello', 7);

SELECT LOCATE('世', 'hello世界');

SELECT LOCATE(NULL, 'hello');

SELECT LOCATE('o', NULL);

SELECT ELT(1, 'a', 'b', 'c');

SELECT ELT(3, 'a', 'b', 'c');

SELECT ELT(0, 'a', 'b', 'c');

SELECT ELT(4, 'a', 'b', 'c');

SELECT ELT(NULL, 'a', 'b', 'c');

SELECT FIELD('b', 'a', 'b', 'c');

SELECT FIELD('d', 'a', 'b', 'c');

SELECT FIELD('A', 'a', 'b', 'c');

SELECT FIELD(NULL, 'a', 'b', 'c');

SELECT INSERT('Quadratic', 3, 4, 'What');

SELECT INSERT('Quadratic', 3, 100, 'What');

SELECT INSERT('Quadratic', 0, 4, 'What');

SELECT INSERT('hello', 1, 0, 'X');

SELECT INSERT('hello世界', 6, 1, 'の');

SELECT INSERT(NULL, 1, 1, 'X');

SELECT CONCAT('[', SPACE(5), ']');

SELECT SPACE(0) = '' AS empty;

SELECT SPACE(-1) = '' AS empty;

SELECT CONCAT('a', SPACE(3), 'b');

SELECT SPACE(NULL);

SELECT INITCAP('hello world');

SELECT INITCAP('HELLO WORLD');

SELECT INITCAP('mIxEd CaSe TeSt');

SELECT INITCAP('hello-world_test');

SELECT INITCAP(NULL);

CREATE TABLE string_test(idx INT, val VARCHAR, ts TIMESTAMP TIME INDEX);

INSERT INTO string_test VALUES (1, 'hello world', 1), (2, 'foo bar baz', 2), (3, 'hello世界', 3), (4, NULL, 4);

SELECT idx, val, LOCATE('o', val) AS loc FROM string_test ORDER BY idx;

SELECT idx, val, INSERT(val, 1, 5, 'hi') AS inserted FROM string_test ORDER BY idx;

SELECT idx, ELT(idx, 'one', 'two', 'three') AS e, FIELD(val, 'foo bar baz', 'hello world') AS f, INITCAP(val) AS i FROM string_test ORDER BY idx;

DROP TABLE string_test;

SELECT FORMAT(1234567.891, 2);

SELECT FORMAT(1234567.891, 0);

SELECT FORMAT(1234.5, 4);

SELECT FORMAT(-1234567.891, 2);

SELECT FORMAT(0.5, 2);

SELECT FORMAT(123, 2);

SELECT FORMAT(NULL, 2);
