SELECT 1 AS Foo, 2 AS "Bar", 3 AS baz;

SELECT Total FROM (SELECT 40 + 2 AS Total) AS t;

SELECT x AS "MixedCase", x AS LowerMe FROM (SELECT 7 AS x) AS s;
