WITH cell_cte AS (
  SELECT s2_latlng_to_cell(37.76938, -122.3889) AS cell
)
SELECT cell,
       s2_cell_to_token(cell),
       s2_cell_level(cell),
       s2_cell_parent(cell, 3)
FROM cell_cte;

SELECT s2_cell_to_token(-9182980628433330229) AS from_bigint;

SELECT s2_cell_parent(s2_latlng_to_cell(37.76938, -122.3889), 31);

SELECT s2_latlng_to_cell(NULL, 1.0) AS a, s2_cell_level(NULL) AS b;
