SELECT vec_to_string(parse_vec('[1.0, 2.0]'));

SELECT vec_to_string(parse_vec('[]'));

SELECT vec_to_string(parse_vec('[3.4028235e38, -3.4028235e38, 1.1754944e-38]'));

SELECT vec_to_string(vec_add('[1.0, 2.0]', '[3.0, 4.0]'));

SELECT vec_to_string(vec_add(parse_vec('[1.0, 2.0]'), '[3.0, 4.0]'));

SELECT vec_to_string(vec_mul('[1.0, 2.0]', parse_vec('[3.0, 4.0]')));

SELECT vec_to_string(vec_sub('[-1.0, -1.0]', '[1.0, 2.0]'));

SELECT vec_to_string(vec_div('[1.0, 2.0]', '[3.0, 4.0]'));

SELECT vec_to_string(vec_div('[1.0, -2.0]', parse_vec('[0.0, 0.0]')));

SELECT vec_to_string(vec_add('[1.0, 2.0]', '[3.0]'));

SELECT vec_elem_sum('[1.0, 2.0, 3.0]'), vec_elem_avg('[-1.0, -2.0, -3.0]'), vec_elem_product('[-1.0, -2.0, -3.0, 4.0]');

SELECT vec_to_string(vec_norm('[0.0, 2.0, 3.0]'));

SELECT vec_to_string(vec_norm('[7.0, -8.0, 9.0]'));

SELECT vec_to_string(vec_scalar_add(1.0, '[1.0, 2.0]'));

SELECT vec_to_string(vec_scalar_add(-1, parse_vec('[1.0, 2.0]')));

SELECT vec_to_string(vec_scalar_mul(-0.5, '[2.0, 4.0]'));

SELECT vec_dim('[7.0, 8.0, 9.0, 10.0]');

SELECT v, vec_dim(v) FROM (SELECT '[1.0, 2.0, 3.0]' AS v UNION ALL SELECT '[-1.0]' AS v UNION ALL SELECT '[7.0, 8.0, 9.0, 10.0]' AS v) ORDER BY vec_dim(v) ASC;

SELECT vec_kth_elem('[1.0, 2.0, 3.0]', 2);

SELECT vec_kth_elem('[1.0, 2.0, 3.0]', 3);

SELECT vec_to_string(vec_subvector('[1.0,2.0,3.0,4.0,5.0]', 0, 3));

SELECT vec_to_string(vec_subvector('[1.0,2.0,3.0,4.0,5.0]', 5, 5));

SELECT vec_to_string(vec_subvector('[1.0,2.0,3.0,4.0,5.0]', 4, 6));

SELECT vec_to_string(vec_sum(v)) FROM (SELECT '[1.0, 2.0, 3.0]' AS v UNION ALL SELECT '[-1.0, -2.0, -3.0]' AS v UNION ALL SELECT '[4.0, 5.0, 6.0]' AS v);

SELECT vec_to_string(vec_avg(v)) FROM (SELECT '[1.0, 2.0, 3.0]' AS v UNION ALL SELECT '[10.0, 11.0, 12.0]' AS v UNION ALL SELECT '[4.0, 5.0, 6.0]' AS v);

SELECT vec_to_string(vec_product(v)) FROM (SELECT '[1.0, 2.0, 3.0]' AS v UNION ALL SELECT '[-1.0, -2.0, -3.0]' AS v UNION ALL SELECT '[4.0, 5.0, 6.0]' AS v);

SELECT vec_dot_product('[1.0, 2.0]', '[3.0, 4.0]'), vec_l2sq_distance('[1.0, 2.0]', '[3.0, 4.0]'), vec_cos_distance('[1.0, 0.0]', '[0.0, 1.0]');
