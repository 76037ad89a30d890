SELECT h3_latlng_to_cell(37.76938, -122.3889, 0), h3_latlng_to_cell_string(37.76938, -122.3889, 0);

SELECT h3_latlng_to_cell(37.76938, -122.3889, 8), h3_latlng_to_cell_string(37.76938, -122.3889, 8);

SELECT h3_latlng_to_cell(37.76938, -122.3889, 100);

SELECT h3_latlng_to_cell(37.76938, -122.3889, -1);

SELECT h3_latlng_to_cell(37.76938, -122.3889, 8::UInt8) AS a, h3_latlng_to_cell_string(37.76938, -122.3889, 8::Int32) AS b;

SELECT h3_latlng_to_cell(NULL, -122.3889, 8) AS a, h3_latlng_to_cell_string(37.76938, -122.3889, NULL) AS b;

SELECT h3_cell_to_string(h3_latlng_to_cell(37.76938, -122.3889, 8::UInt64)) AS cell_str, h3_string_to_cell(h3_latlng_to_cell_string(37.76938, -122.3889, 8::UInt64)) AS cell_index;

SELECT h3_cell_to_string(613196570438926335::BIGINT) AS from_bigint, h3_cell_to_string('88283082e7fffff') AS from_string;

SELECT h3_string_to_cell('not a cell');

SELECT h3_cell_resolution(12345);

SELECT h3_cell_center_latlng(h3_string_to_cell('86283082fffffff')) AS cell_center;

SELECT h3_cell_resolution(cell) AS resolution, h3_cell_base(cell) AS base, h3_cell_is_pentagon(cell) AS pentagon, h3_cell_parent(cell, 6::UInt64) AS parent, h3_cell_to_children_size(cell, 10) AS children_count, h3_cell_to_child_pos(cell, 6) AS child_pos, h3_child_pos_to_cell(25, cell, 11) AS child FROM (SELECT h3_latlng_to_cell(37.76938, -122.3889, 8::UInt64) AS cell);

SELECT h3_cell_to_children(h3_string_to_cell('88283082e7fffff'), 9) AS children, h3_cell_center_child('88283082e7fffff', 10) AS center_child;

SELECT h3_cell_parent('88283082e7fffff', 9) AS finer_parent, h3_cell_center_child('88283082e7fffff', 7) AS coarser_child, h3_cell_to_children('88283082e7fffff', 7) AS no_children;

SELECT h3_cell_is_pentagon('8009fffffffffff') AS pentagon;

SELECT h3_grid_disk(cell, 0) AS current_cell, h3_grid_disk(cell, 1) AS grids, h3_grid_disk_distances(cell, 1) AS all_grids FROM (SELECT h3_latlng_to_cell(37.76938, -122.3889, 8::UInt64) AS cell);

SELECT h3_grid_distance(cell1, cell2) AS distance, h3_grid_path_cells(cell1, cell2) AS path_cells, round(h3_distance_sphere_km(cell1, cell2), 5) AS sphere_distance, round(h3_distance_degree(cell1, cell2), 14) AS euclidean_distance FROM (SELECT h3_string_to_cell('86283082fffffff') AS cell1, h3_string_to_cell('86283470fffffff') AS cell2);

SELECT unnest(h3_grid_path_cells(cell1, cell2)) AS path_cells FROM (SELECT h3_string_to_cell('86283082fffffff') AS cell1, h3_string_to_cell('86283470fffffff') AS cell2);

SELECT h3_cells_contains('86283470fffffff,862834777ffffff, 862834757ffffff, 86283471fffffff, 862834707ffffff', '8b283470d112fff') AS R00, h3_cells_contains('86283470fffffff,862834777ffffff, 862834757ffffff, 86283471fffffff, 862834707ffffff', 604189641792290815) AS R01, h3_cells_contains('86283470fffffff,862834777ffffff, 862834757ffffff, 86283471fffffff, 862834707ffffff', 626707639343067135) AS R02;

SELECT h3_cells_contains(['86283470fffffff', '862834777ffffff', '862834757ffffff', '86283471fffffff', '862834707ffffff'], '86283472fffffff') AS R10, h3_cells_contains(['86283470fffffff', '862834777ffffff', '862834757ffffff', '86283471fffffff', '862834707ffffff'], '8b283470d112fff') AS R11, h3_cells_contains(['86283470fffffff', '862834777ffffff', '862834757ffffff', '86283471fffffff', '862834707ffffff'], 626707639343067135) AS R12;

SELECT h3_cells_contains([604189641255419903, 604189643000250367, 604189642463379455, 604189641523855359, 604189641121202175], '8b283470d112fff') AS R20, h3_cells_contains([604189641255419903, 604189643000250367, 604189642463379455, 604189641523855359, 604189641121202175], 604189641792290815) AS R21, h3_cells_contains([604189641255419903, 604189643000250367, 604189642463379455, 604189641523855359, 604189641121202175], 626707639343067135) AS R22;

SELECT h3_grid_disk('88283082e7fffff', 1000);

SELECT h3_cell_to_children('8029fffffffffff', 15);

SELECT h3_grid_path_cells('8f2830828cf01ab', '8f28d5552773a10');

CREATE TABLE h3_places(name STRING PRIMARY KEY, lat DOUBLE, lng DOUBLE, ts TIMESTAMP TIME INDEX);

INSERT INTO h3_places VALUES ('sf', 37.76938, -122.3889, 1), ('oakland', 37.8044, -122.2712, 2), ('paris', 48.8566, 2.3522, 3), ('nowhere', NULL, 0.0, 4);

SELECT name, h3_latlng_to_cell_string(lat, lng, 5) AS cell, h3_cell_to_string(h3_cell_parent(h3_latlng_to_cell(lat, lng, 5), 2)) AS region FROM h3_places ORDER BY name;

SELECT h3_cell_to_string(h3_cell_parent(h3_latlng_to_cell(lat, lng, 5), 3)) AS region, count(*) AS n FROM h3_places WHERE lat IS NOT NULL GROUP BY region ORDER BY region;

DROP TABLE h3_places;
