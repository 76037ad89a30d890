-- json_get functions
SELECT json_get_int(parse_json('{"a": {"b": {"c": 1}}}'), 'a.b.c');

SELECT json_get_float(parse_json('{"a": {"b": {"c": 1.234}}}'), 'a:b.c');

SELECT json_get_string(parse_json('{"a": {"b": {"c": "foo"}}}'), 'a.b:c');

SELECT json_get_bool(parse_json('{"a": {"b": {"c": true}}}'), 'a.b["c"]');

SELECT json_get_int(parse_json('{"a": {"b": {"c": {"d": 1}}}}'), 'a.b');

SELECT json_get_string(parse_json('{"a": {"b": {"c": {"d": 1}}}}'), 'a.b');

SELECT json_to_string(json_get_object(parse_json('{"a": {"b": {"c": {"d": 42}}}}'), 'a.b.c'));

SELECT json_get_int(json_get_object(parse_json('{"a": {"b": {"c": {"d": 42}}}}'), 'a.b.c'), 'd');

SELECT json_get_object(parse_json('{"a": {"b": {"c": {"d": 42}}}}'), 'a.e');

CREATE TABLE jsons(j JSON, ts timestamp time index);

INSERT INTO jsons VALUES(parse_json('{"a": {"b": {"c": 1}}}'), 1);

INSERT INTO jsons VALUES(parse_json('{"a": {"b": {"c": 1.234}}}'), 2);

INSERT INTO jsons VALUES(parse_json('{"a": {"b": {"c": "foo"}}}'), 3);

INSERT INTO jsons VALUES(parse_json('{"a": {"b": {"c": true}}}'), 4);

SELECT json_get_int(j, 'a.b.c') FROM jsons ORDER BY ts;

SELECT json_get_float(j, 'a["b"].c') FROM jsons ORDER BY ts;

SELECT json_get_string(j, 'a.b.c') FROM jsons ORDER BY ts;

SELECT json_get_bool(j, 'a.b.c') FROM jsons ORDER BY ts;

SELECT json_get_int(j, 'a.b["c"]') FROM jsons ORDER BY ts;

SELECT json_to_string(json_get_object(j, 'a.b')) FROM jsons ORDER BY ts;

SELECT json_get_string(json_get_object(j, 'a.b'), 'c') FROM jsons ORDER BY ts;

SELECT json_get_object(j, 'a.x') FROM jsons ORDER BY ts;

DROP TABLE jsons;

-- arrays
CREATE TABLE jsons(j JSON, ts timestamp time index);

INSERT INTO jsons VALUES(parse_json('["a", "bcde", "", "Long time ago, there is a little pig flying in the sky"]'), 1);

INSERT INTO jsons VALUES(parse_json('[true, false, false, false]'), 2);

INSERT INTO jsons VALUES(parse_json('[1, 0, -2147483649, 2147483648]'), 3);

INSERT INTO jsons VALUES(parse_json('[1.2, 3.1415926535897932384626, -3e123, 1e100]'), 4);

INSERT INTO jsons VALUES(parse_json('[{"a": {"i": 1}}, {"a": {"i": 2}}, {"a": {"i": 3}}]'), 5);

SELECT json_get_int(j, '[0]') FROM jsons ORDER BY ts;

SELECT json_get_float(j, '[1]') FROM jsons ORDER BY ts;

SELECT json_get_bool(j, '[2]') FROM jsons ORDER BY ts;

SELECT json_get_string(j, '[3]') FROM jsons ORDER BY ts;

SELECT json_get_string(j, '[last]') FROM jsons ORDER BY ts;

SELECT json_get_int(j, '$[last - 1].a.i') FROM jsons ORDER BY ts;

SELECT json_to_string(json_get_object(j, '[0]')) FROM jsons ORDER BY ts;

SELECT json_get_int(json_get_object(j, '[0]'), 'a.i') FROM jsons ORDER BY ts;

SELECT json_get_int(json_get_object(j, '[9]'), 'a.i') FROM jsons ORDER BY ts;

SELECT json_get(j, '[3]') FROM jsons ORDER BY ts;

-- json_get(...)::T reads the value as T: int8 (BIGINT), double, bool, string
SELECT json_get(j, '[0]')::int8 FROM jsons ORDER BY ts;

SELECT json_get(j, '[0]')::double FROM jsons ORDER BY ts;

SELECT json_get(j, '[1]')::int8 FROM jsons ORDER BY ts;

SELECT json_get(j, '[1]')::double FROM jsons ORDER BY ts;

SELECT json_get(j, '[2]')::bool FROM jsons ORDER BY ts;

SELECT CAST(json_get(j, '[3]') AS STRING) FROM jsons ORDER BY ts;

DROP TABLE jsons;

-- in WHERE
CREATE TABLE jsons(j JSON, ts timestamp time index);

INSERT INTO jsons VALUES(parse_json('{"a": {"b": {"c": 1}}}'), 1), (parse_json('{"a": {"b": {"c": 1.234}}}'), 2), (parse_json('{"a": {"b": {"c": "foo"}}}'), 3), (parse_json('{"a": {"b": {"c": true}}}'), 4);

SELECT json_to_string(j) FROM jsons WHERE json_get_int(j, 'a.b.c') = 1 ORDER BY ts;

SELECT json_to_string(j) FROM jsons WHERE json_get_float(j, 'a.b.c') = 1.234 ORDER BY ts;

SELECT json_to_string(j) FROM jsons WHERE json_get_string(j, 'a.b.c') = 'foo' ORDER BY ts;

SELECT json_to_string(j) FROM jsons WHERE json_get_bool(j, 'a.b.c') = true ORDER BY ts;

SELECT json_to_string(j) FROM jsons WHERE CAST(json_get_int(j, 'a.b.c') AS BOOLEAN) ORDER BY ts;

SELECT json_to_string(j) FROM jsons WHERE json_to_string(json_get_object(j, 'a.b')) = '{"c":1}' ORDER BY ts;

SELECT json_to_string(j) FROM jsons WHERE json_get_string(json_get_object(j, 'a.x'), 'c') = 'foo' ORDER BY ts;

DROP TABLE jsons;

-- json_is functions
SELECT json_is_object(parse_json('{"a": 1}'));

SELECT json_is_array(parse_json('[1, 2, 3]'));

SELECT json_is_int(parse_json('1'));

SELECT json_is_bool(parse_json('true'));

SELECT json_is_null(parse_json('null'));

SELECT json_is_float(parse_json('1.2'));

SELECT json_is_string(parse_json('"foo"'));

SELECT json_is_null(parse_json('{"a": 1}'));

SELECT json_is_string(parse_json('[1, 2, 3]'));

SELECT json_is_float(parse_json('1'));

SELECT json_is_int(parse_json('1.0'));

CREATE TABLE jsons(j JSON, ts timestamp time index);

INSERT INTO jsons VALUES(parse_json('{"a": 1}'), 1), (parse_json('[1, 2, 3]'), 2), (parse_json('1'), 3), (parse_json('true'), 4), (parse_json('null'), 5), (parse_json('1.2'), 6), (parse_json('"foo"'), 7);

SELECT json_to_string(j) FROM jsons WHERE json_is_object(j);

SELECT json_to_string(j) FROM jsons WHERE json_is_array(j);

SELECT json_to_string(j) FROM jsons WHERE json_is_int(j);

SELECT json_to_string(j) FROM jsons WHERE json_is_bool(j);

SELECT json_to_string(j) FROM jsons WHERE json_is_null(j);

SELECT json_to_string(j) FROM jsons WHERE json_is_float(j) ORDER BY ts;

SELECT json_to_string(j) FROM jsons WHERE json_is_string(j);

SELECT j, ts FROM jsons ORDER BY ts;

DROP TABLE jsons;

-- json_object_keys, json_path_exists, json_path_match
SELECT json_object_keys(parse_json('{"b": 1, "a": {"c": 2}}'));

SELECT json_object_keys(parse_json('{}'));

SELECT json_object_keys(parse_json('[1, 2]'));

SELECT json_object_keys(NULL);

SELECT json_path_exists(parse_json('{"a": 1, "b": 2}'), '$.a');

SELECT json_path_exists(parse_json('{"a": 1, "b": 2}'), '$.c');

SELECT json_path_exists(parse_json('[1, 2]'), '[0]');

SELECT json_path_exists(parse_json('[1, 2]'), '[2]');

SELECT json_path_exists(parse_json('[1, 2]'), 'null');

SELECT json_path_exists(parse_json('null'), '$.a');

SELECT json_path_exists(NULL, '$.a');

SELECT json_path_exists(parse_json('{}'), NULL);

SELECT json_path_match(parse_json('{"a": 1, "b": 2}'), '$.a == 1');

SELECT json_path_match(parse_json('{"a":1,"b":[1,2,3]}'), '$.b[0] > 1');

SELECT json_path_match(parse_json('{"a":1,"b":[1,2,3]}'), '$.b[1 to last] >= 2');

SELECT json_path_match(parse_json('{"a":1,"b":[1,2,3]}'), 'null');

SELECT json_path_match(parse_json('null'), '$.a == 1');

SELECT json_path_match(parse_json('{"a":[{"x":1},{"x":5}]}'), '$.a[*].x == 5');

SELECT json_path_exists(parse_json('{"a":[{"x":1},{"x":5}]}'), '$.a[*] ? (@.x > 3)');

SELECT json_to_string(json_object('a', 1, 'b', 'text', 'c', true, 'd', 1.5));
