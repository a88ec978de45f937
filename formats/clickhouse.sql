-- zt's tables in ClickHouse (formats/clickhouse.md): run as it is,
--   clickhouse-client --multiquery < formats/clickhouse.sql
-- on every server of the cluster `zt` (the servers' remote_servers).
-- zt-ingest writes rows to zt.samples_all; each dump's rows go whole to
-- one shard (by its id), where zt.samples keeps them.
CREATE DATABASE IF NOT EXISTS zt;

CREATE TABLE IF NOT EXISTS zt.samples
(
    dump_id String,              -- the dump's id: a hash of its text
    host String,                 -- where it ran (the dump's host), '' if not said
    label_keys Array(String),    -- zt-collect --label KEY=VALUE, in order
    label_values Array(String),
    bucket DateTime,             -- the start of the row's time bucket (zt-ingest --bucket)
    event String,                -- zt-samples, zt-wall-ns, a perf event, or folded
    unit String,                 -- what weight counts: samples, ns, or the event's unit
    pid UInt32,                  -- 0 when the input does not say (folded stacks)
    tid UInt32,
    thread String,               -- the thread's name, as zt-fold's root frame spells it
    command String,              -- the executable's file name ('' unless a raw dump)
    stack Array(String),         -- zt-fold's frames, root first
    weight UInt64                -- zt-fold's count for that stack
)
ENGINE = MergeTree()
PARTITION BY toYYYYMM(bucket)
ORDER BY (host, command, bucket, dump_id);

CREATE TABLE IF NOT EXISTS zt.samples_all AS zt.samples
ENGINE = Distributed(zt, zt, samples, cityHash64(dump_id));
