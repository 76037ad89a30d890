/**
 * Limits on the shape of tables, shared by the statements that define tables (CREATE TABLE, ALTER
 * TABLE) and by schema on write (the ingestion protocols add a column per new tag or field).
 *
 * GreptimeDB sets no limit on the columns of a table: its only bound is the column id, a u32 whose
 * top bit marks the engine's own columns (`store-api` `ReservedColumnId`), so 2^31 user column ids.
 * Its line protocol, OpenTSDB and remote write v1 decoders accept any number of tags per point.
 * tsdb sets a limit so that one request cannot make a table too wide to use (a line with 10,000 tags
 * would otherwise become 10,000 primary key columns, and the arrays of every row of its request):
 */

/**
 * The most columns a table may have, its time index included: 4,096 (MySQL's hard limit per table;
 * PostgreSQL's is 1,600). Far above any time-series schema (TSBS cpu: 21 columns), and below where
 * flushing and scanning a region slow down with width (measured: a flush of 10,000 columns takes
 * about five times as long as one of 4,000).
 */
export const MAX_COLUMNS_PER_TABLE = 4096;
