SELECT geohash(37.76938, -122.3889, 9);

SELECT geohash(37.76938, -122.3889, 10);

SELECT geohash(37.76938, -122.3889, 11);

SELECT geohash(37.76938, -122.3889, 100);

SELECT geohash(37.76938, -122.3889, -1);

SELECT geohash(37.76938, -122.3889, 11::TINYINT), geohash(37.76938, -122.3889, 11::UINTEGER);

SELECT geohash(NULL, -122.3889, 5), geohash(37.76938, -122.3889, NULL);

SELECT geohash(97.0, 1.0, 3);

SELECT geohash_neighbours(37.76938, -122.3889, 11);

SELECT geohash_neighbours(0.0, 0.0, 1);

CREATE TABLE places(name STRING PRIMARY KEY, lat DOUBLE, lng DOUBLE, ts TIMESTAMP TIME INDEX);

INSERT INTO places VALUES ('sf', 37.76938, -122.3889, 1), ('paris', 48.8566, 2.3522, 2), ('sydney', -33.8688, 151.2093, 3), ('nowhere', NULL, 0.0, 4);

SELECT name, geohash(lat, lng, 6) AS cell FROM places ORDER BY name;

SELECT geohash(lat, lng, 1) AS region, count(*) AS n FROM places WHERE lat IS NOT NULL GROUP BY region ORDER BY region;

DROP TABLE places;
