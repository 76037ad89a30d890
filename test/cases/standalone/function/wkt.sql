SELECT wkt_point_from_latlng(37.76938, -122.3889) AS point;

SELECT st_distance_sphere_m(p1, p2) AS sphere_dist_m FROM (SELECT wkt_point_from_latlng(37.76938, -122.3889) AS p1, wkt_point_from_latlng(38.5216, -121.4247) AS p2);

SELECT st_distance_sphere_m(wkt_point_from_latlng(37.76938, -122.3889), 'POLYGON ((-121.491698 38.653343, -121.582353 38.556757, -121.469721 38.449287, -121.315883 38.541721, -121.491698 38.653343))');

SELECT wkt_point_from_latlng(NULL, 1.0) AS a, st_distance_sphere_m('POINT(0 0)', NULL) AS b;
