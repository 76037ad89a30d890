/**
 * Limits on what the catalog holds, shared by SQL DDL (CREATE TABLE, ALTER TABLE, CREATE DATABASE;
 * checked by `limit-checks.ts`) and schema on write (the ingestion protocols add a column per new tag
 * or field, `frontend/ingest.ts`).
 *
 * GreptimeDB (mirror commit 7fd0a7bb) bounds neither the length of names nor the number of columns
 * (its only column bound is the column id, a u32 whose top bit marks the engine's own columns), and
 * its line protocol, OpenTSDB and remote write decoders accept any number of tags per point; it
 * checks table and database names against a pattern (below). The other limits are tsdb's own, each
 * where exceeding it would otherwise fail inside the server or make a table too wide to use.
 */

/**
 * What a table or database name may be: GreptimeDB's `NAME_PATTERN`
 * (`src/common/base/src/regex_pattern.rs`), checked by its CREATE TABLE, ALTER TABLE RENAME and
 * CREATE DATABASE. It keeps `/` and `..` out of database names, which are directory names.
 */
export const NAME_PATTERN = /^[a-zA-Z_:-][a-zA-Z0-9_:\-.@#]*$/;

/**
 * Characters of a database name: it is a directory of every region path
 * (`{catalog}/{db}/{table_id}/…`), and file systems take at most 255 bytes per name (the pattern
 * allows ASCII only, so characters are bytes).
 */
export const MAX_DATABASE_NAME_LENGTH = 255;

/**
 * Characters of a table or column name. GreptimeDB sets none, but a name is repeated in every
 * catalog key, message and result header that names it (a 1 MB table name made every answer about
 * it 1 MB); 255 is far above Prometheus metric and label names, and above MySQL's 64 and
 * PostgreSQL's 63.
 */
export const MAX_NAME_LENGTH = 255;

/**
 * The most columns a table may have, its time index included: 4,096 (MySQL's hard limit per table;
 * PostgreSQL's is 1,600). Far above any time-series schema (TSBS cpu: 21 columns), and below where
 * flushing and scanning a region slow down with width (measured: a flush of 4,000 columns takes
 * 0.45 s, of 10,000 2.4 s, of 65,535 — the WAL's u16 column count, `engine/batch/batch-codec.ts` —
 * about 40 s and 4.5 GB). One line with 10,000 tags would otherwise become 10,000 primary key columns.
 */
export const MAX_COLUMNS_PER_TABLE = 4096;

/**
 * The most columns a region may have: a WAL write record counts its columns in 16 bits
 * (`engine/batch/batch-codec.ts`). A physical metric table, whose tags are the union of its logical
 * tables' labels (thousands of metrics of a Prometheus), is bounded only by this.
 */
export const MAX_COLUMNS_PER_REGION = 65_535;
