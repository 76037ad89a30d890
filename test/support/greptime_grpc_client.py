"""An independent GreptimeDB gRPC client for tsdb's tests, in Python on Debian's python3-grpcio.

Usage: greptime_grpc_client.py <stubs-dir> <addr> <command> [options as JSON]

<stubs-dir> holds the modules python3 -m grpc_tools.protoc generated from the repository's
proto/greptime/v1/*.proto (test/integration/grpc-python.test.ts generates them at test time).
Commands (each prints one JSON object):
  health                     HealthCheck
  row-inserts                Handle with row_inserts (table, rows of host/ts/usage/count/ok)
  stream                     HandleRequests with several row_inserts messages
  bad-type                   Handle with a value of the wrong type: the gRPC status and trailers
Hook: a Flight DoGet query command (flight-query) is to be added beside these once tsdb serves
Arrow Flight (arrow.flight.protocol.FlightService); it would generate Flight stubs the same way.
"""
import json
import sys

stubs, addr, command = sys.argv[1], sys.argv[2], sys.argv[3]
opts = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
sys.path.insert(0, stubs)

import grpc  # noqa: E402
from greptime.v1 import common_pb2, database_pb2, database_pb2_grpc, health_pb2, health_pb2_grpc, row_pb2  # noqa: E402

channel = grpc.insecure_channel(addr)


def header():
    h = common_pb2.RequestHeader(dbname=opts.get("dbname", "public"))
    if "username" in opts:
        h.authorization.basic.username = opts["username"]
        h.authorization.basic.password = opts["password"]
    return h


def schema():
    return [
        row_pb2.ColumnSchema(column_name="host", datatype=common_pb2.STRING, semantic_type=common_pb2.TAG),
        row_pb2.ColumnSchema(column_name="ts", datatype=common_pb2.TIMESTAMP_MILLISECOND, semantic_type=common_pb2.TIMESTAMP),
        row_pb2.ColumnSchema(column_name="usage", datatype=common_pb2.FLOAT64, semantic_type=common_pb2.FIELD),
        row_pb2.ColumnSchema(column_name="count", datatype=common_pb2.INT64, semantic_type=common_pb2.FIELD),
        row_pb2.ColumnSchema(column_name="ok", datatype=common_pb2.BOOLEAN, semantic_type=common_pb2.FIELD),
    ]


def row(host, ts, usage, count, ok):
    values = [
        row_pb2.Value(string_value=host),
        row_pb2.Value(timestamp_millisecond_value=ts),
        row_pb2.Value(f64_value=usage) if usage is not None else row_pb2.Value(),
        row_pb2.Value(i64_value=count),
        row_pb2.Value(bool_value=ok),
    ]
    return row_pb2.Row(values=values)


def insert_request(table, rows):
    return database_pb2.GreptimeRequest(
        header=header(),
        row_inserts=database_pb2.RowInsertRequests(
            inserts=[database_pb2.RowInsertRequest(table_name=table, rows=row_pb2.Rows(schema=schema(), rows=rows))]
        ),
    )


def failure(err):
    trailers = {k: v for k, v in (err.trailing_metadata() or [])}
    return {"code": err.code().name, "details": err.details(), "err_code": trailers.get("x-greptime-err-code")}


db = database_pb2_grpc.GreptimeDatabaseStub(channel)
if command == "health":
    health_pb2_grpc.HealthCheckStub(channel).HealthCheck(health_pb2.HealthCheckRequest(), timeout=10)
    print(json.dumps({"health": "ok"}))
elif command == "row-inserts":
    rows = [row("py-a", 1700000000000, 0.25, 2**53 + 1, True), row("py-b", 1700000001000, None, -3, False)]
    try:
        resp = db.Handle(insert_request(opts["table"], rows), timeout=10)
        print(json.dumps({"affected_rows": resp.affected_rows.value, "status_code": resp.header.status.status_code}))
    except grpc.RpcError as err:
        print(json.dumps(failure(err)))
elif command == "stream":
    def requests():
        for m in range(opts["messages"]):
            yield insert_request(opts["table"], [row("py-s%d" % m, 1700000000000 + i, float(i), i, i % 2 == 0) for i in range(10)])

    resp = db.HandleRequests(requests(), timeout=30)
    print(json.dumps({"affected_rows": resp.affected_rows.value}))
elif command == "bad-type":
    req = insert_request(opts["table"], [])
    bad = req.row_inserts.inserts[0].rows.rows.add()
    bad.values.extend([row_pb2.Value(string_value="x"), row_pb2.Value(timestamp_millisecond_value=1), row_pb2.Value(string_value="not a float"), row_pb2.Value(i64_value=1), row_pb2.Value(bool_value=True)])
    try:
        db.Handle(req, timeout=10)
        print(json.dumps({"unexpected": "success"}))
    except grpc.RpcError as err:
        print(json.dumps(failure(err)))
else:
    sys.exit("unknown command: " + command)
