/**
 * The configuration options of DuckDB, the engine that runs tsdb's queries (lower case, as
 * `duckdb_settings()` of the pinned DuckDB lists them; a test keeps the list equal to it). No
 * statement may change them (DESIGN.md D12): `SET` of one is refused with a permission error over
 * every protocol, so that nothing suggests it took effect (DuckDB's configuration is locked too).
 */
export const ENGINE_SETTINGS: ReadonlySet<string> = new Set([
  '__delta_only_variant_encoding_enabled', 'access_mode', 'allocator_background_threads',
  'allocator_bulk_deallocation_flush_threshold', 'allocator_flush_threshold', 'allow_community_extensions',
  'allow_extensions_metadata_mismatch', 'allow_parser_override_extension', 'allow_persistent_secrets',
  'allow_unredacted_secrets', 'allow_unsigned_extensions', 'allowed_configs', 'allowed_directories',
  'allowed_paths', 'arrow_large_buffer_size', 'arrow_lossless_conversion', 'arrow_output_list_view',
  'arrow_output_version', 'asof_loop_join_threshold', 'auto_checkpoint_skip_wal_threshold',
  'autoinstall_extension_repository', 'autoinstall_known_extensions', 'autoload_known_extensions',
  'binary_as_string', 'block_allocator_memory', 'calendar', 'catalog_error_max_schemas',
  'checkpoint_threshold', 'current_transaction_invalidation_policy', 'custom_extension_repository',
  'custom_profiling_settings', 'custom_user_agent', 'debug_asof_iejoin', 'debug_checkpoint_abort',
  'debug_checkpoint_scan_sleep_ms', 'debug_checkpoint_sleep_ms', 'debug_eviction_queue_sleep_micro_seconds',
  'debug_force_external', 'debug_force_no_cross_product', 'debug_physical_table_scan_execution_strategy',
  'debug_skip_checkpoint_on_commit', 'debug_verify_blocks', 'debug_verify_vector', 'debug_window_mode',
  'default_block_size', 'default_collation', 'default_null_order', 'default_order', 'default_secret_storage',
  'deprecated_using_key_syntax', 'disable_database_invalidation', 'disable_parquet_prefetching',
  'disable_timestamptz_casts', 'disabled_compression_methods', 'disabled_filesystems', 'disabled_log_types',
  'disabled_optimizers', 'duckdb_api', 'dynamic_or_filter_threshold', 'enable_caching_operators',
  'enable_external_access', 'enable_external_file_cache', 'enable_fsst_vectors',
  'enable_geoparquet_conversion', 'enable_http_logging', 'enable_http_metadata_cache', 'enable_logging',
  'enable_macro_dependencies', 'enable_object_cache', 'enable_optimistic_write', 'enable_profiling',
  'enable_progress_bar', 'enable_progress_bar_print', 'enable_view_dependencies', 'enabled_log_types',
  'errors_as_json', 'experimental_metadata_reuse', 'explain_output', 'extension_directories',
  'extension_directory', 'external_threads', 'file_search_path', 'force_bitpacking_mode',
  'force_column_metadata_reuse', 'force_compression', 'force_mbedtls_unsafe', 'force_variant_shredding',
  'geometry_minimum_shredding_size', 'home_directory', 'http_logging_output', 'http_proxy',
  'http_proxy_password', 'http_proxy_username', 'ieee_floating_point_ops', 'ignore_unknown_crs',
  'immediate_transaction_mode', 'index_scan_max_count', 'index_scan_percentage', 'integer_division',
  'lambda_syntax', 'late_materialization_max_rows', 'lock_configuration', 'log_query_path', 'logging_level',
  'logging_mode', 'logging_storage', 'max_expression_depth', 'max_memory', 'max_temp_directory_size',
  'max_vacuum_tasks', 'memory_limit', 'merge_join_threshold', 'nested_loop_join_threshold', 'null_order',
  'old_implicit_casting', 'order_by_non_integer_literal', 'ordered_aggregate_threshold',
  'parquet_metadata_cache', 'partitioned_write_flush_threshold', 'partitioned_write_max_open_files',
  'password', 'perfect_ht_threshold', 'pin_threads', 'pivot_filter_threshold', 'pivot_limit',
  'prefer_range_joins', 'prefetch_all_parquet_files', 'preserve_identifier_case', 'preserve_insertion_order',
  'produce_arrow_string_view', 'profile_output', 'profiling_coverage', 'profiling_mode', 'profiling_output',
  'progress_bar_time', 'scalar_subquery_error_on_multiple_rows', 'scheduler_process_partial', 'schema',
  'search_path', 'secret_directory', 'storage_block_prefetch', 'storage_compatibility_version',
  'streaming_buffer_size', 'temp_directory', 'temp_file_encryption', 'threads', 'timezone', 'user',
  'username', 'vacuum_rebuild_indexes', 'validate_external_file_cache', 'variant_minimum_shredding_size',
  'wal_autocheckpoint', 'wal_autocheckpoint_entries', 'warnings_as_errors', 'worker_threads',
  'write_buffer_row_group_count', 'write_buffer_row_group_memory_limit', 'zstd_min_string_length',
]);

/** Session variables tsdb keeps itself (time zone, PostgreSQL's schema), though DuckDB has settings of those names. */
const TSDB_VARIABLES = new Set(['timezone', 'time_zone', 'search_path', 'schema']);

/**
 * Whether `name` (any case, without `@@` / `session.`) names one of DuckDB's configuration options
 * and no session variable of tsdb's.
 */
export function isEngineSetting(name: string): boolean {
  const n = name.toLowerCase();
  return ENGINE_SETTINGS.has(n) && !TSDB_VARIABLES.has(n);
}
