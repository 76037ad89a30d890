SELECT wkt_point_from_latlng(37.76938, -122.3889) AS point;

SELECT st_distance_sphere_m(p1, p2) AS sphere_dist_m FROM (SELECT wkt_point_from_latlng(37.76938, -122.3889) AS p1, wkt_point_from_latlng(38.5216, -121.4247) AS p2);

SELECT st_distance_sphere_m(wkt_point_from_latlng(37.76938, -122.3889), 'POLYGON ((-121.491698 38.653343, -121.582353 38.556757, -121.469721 38.449287, -121.315883 38.541721, -121.491698 38.653343))');

SELECT wkt_point_from_latlng(NULL, 1.0) AS a, st_distance_sphere_m('POINT(0 0)', NULL) AS b;

SELECT
    st_distance(p1, p2) AS euclidean_dist,
    st_distance_sphere_m(p1, p2) AS sphere_dist_m,
    st_distance(p1, polygon1) AS euclidean_dist_pp,
    st_area(p1) as area_point,
    st_area(polygon1) as area_polygon,
FROM
    (
        SELECT
            wkt_point_from_latlng(37.76938, -122.3889) AS p1,
            wkt_point_from_latlng(38.5216, -121.4247) AS p2,
            'POLYGON ((-121.491698 38.653343, -121.582353 38.556757, -121.469721 38.449287, -121.315883 38.541721, -121.491698 38.653343))' AS polygon1,
    );

SELECT st_area('POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))') AS with_hole, st_distance('LINESTRING(0 0, 1 0)', 'LINESTRING(0 3, 1 3)') AS lines;
