CREATE TABLE jsons (j JSON, t timestamp time index);

-- Valid JSON strings, stored as their canonical text: keys sorted, no spaces, floats in shortest form
INSERT INTO jsons VALUES('[null]', 0),
('[true]', 1),
('[false]', 2),
('[0]', 3),
('["foo"]', 4),
('[]', 5),
('{}', 6),
('[0,1]', 7),
('{"foo":"bar"}', 8),
('{"a":null,"foo":"bar"}', 9),
('[-1]', 10),
('{"entities": {
    "description": {
        "urls": [
            {
                "url": "http://t.co/QMLJeFmfMT",
                "expanded_url": "http://www.pixiv.net/member.php?id=4776",
                "display_url": "pixiv.net/member.php?id=…",
                "indices": [
                    58,
                    80
                ]
            }
        ]
    }
}}', 11),
('{"a":"abc\u2028tom"}', 12),
('{"b": 1.0, "a": [1e100, 3.1415926535897932384626, 0.000001, 1e-7, 4294967296, -2147483649, 0.00001, 1e16, 123456.0]}', 13),
('{"dup": 1, "dup": 2}', 14),
('"quote\"back\\slash\ttab"', 15);

INSERT INTO jsons VALUES(parse_json('[null]'), 1000),
(parse_json('{"foo":"bar", "a": [1, 2]}'), 1001),
(parse_json('[-2147483648]'), 1002),
(parse_json('  {"a" : "abc\u2028tom"}  '), 1003);

SELECT json_to_string(j), t FROM jsons ORDER BY t;

SELECT j, t FROM jsons WHERE t < 3 OR t = 1001 ORDER BY t;

DESC TABLE jsons;

SHOW CREATE TABLE jsons;

SELECT column_name, data_type, column_type FROM information_schema.columns WHERE table_name = 'jsons' ORDER BY column_name;

-- Invalid JSON
INSERT INTO jsons VALUES(parse_json('{"a":1, "b":2, "c":3'), 4);

INSERT INTO jsons VALUES(parse_json('Morning my friends, have a nice day :)'), 5);

INSERT INTO jsons VALUES('Morning my friends, have a nice day :)', 5);

INSERT INTO jsons VALUES('{"a": 1,}', 5);

SELECT parse_json('[1, 2');

SELECT parse_json('[1 2]');

SELECT parse_json('{"a" 1}');

SELECT parse_json('{1: 1}');

SELECT parse_json('[01]');

SELECT parse_json('nul');

SELECT parse_json('1 2');

DELETE FROM jsons;

SELECT json_to_string(j), t FROM jsons;

CREATE TABLE json_empty (j JSON, t timestamp time index);

INSERT INTO json_empty VALUES(NULL, 2);

INSERT INTO json_empty (t) VALUES (3);

SELECT json_to_string(j), t FROM json_empty ORDER BY t;

ADMIN flush_table('json_empty');

INSERT INTO json_empty VALUES('{"after": "flush"}', 4);

SELECT j, json_to_string(j), t FROM json_empty ORDER BY t;

INSERT INTO json_empty SELECT '{"from": "select"}', 5;

SELECT j, t FROM json_empty WHERE t = 5;

drop table jsons;

drop table json_empty;
