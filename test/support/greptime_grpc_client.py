"""An independent GreptimeDB gRPC client for tsdb's tests, in Python on Debian's python3-grpcio.

Usage: greptime_grpc_client.py <stubs-dir> <addr> <command> [options as JSON]

<stubs-dir> holds the modules python3 -m grpc_tools.protoc generated from the repository's
proto/greptime/v1/*.proto (test/integration/grpc-python.test.ts generates them at test time).
Commands (each prints one JSON object):
  health                     HealthCheck
  row-inserts                Handle with row_inserts (table, rows of host/ts/usage/count/ok)
  stream                     HandleRequests with several row_inserts messages
  bad-type                   Handle with a value of the wrong type: the gRPC status and trailers
  flight-query               Arrow Flight DoGet of a ticket holding GreptimeRequest{header, query{sql}}
                             (stubs of proto/arrow/flight/protocol/Flight.proto in <stubs-dir> too):
                             the IPC message types, the rows, the first column read as int64s, and
                             FlightMetadata.affected_rows of a statement without rows. The Arrow
                             flatbuffers are read by hand below (Debian 12 has no pyarrow).
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


# Arrow IPC Message flatbuffers (format/Message.fbs), read by hand: a table's field i is found
# through its vtable (int16 offsets after the vtable's two int16 sizes).
def fb_field(buf, table, i):
    vtable = table - int.from_bytes(buf[table:table + 4], "little", signed=True)
    vt_size = int.from_bytes(buf[vtable:vtable + 2], "little")
    if 4 + 2 * i >= vt_size:
        return None
    off = int.from_bytes(buf[vtable + 4 + 2 * i:vtable + 6 + 2 * i], "little")
    return table + off if off else None


def fb_int(buf, pos, size, default=0):
    return default if pos is None else int.from_bytes(buf[pos:pos + size], "little", signed=True)


def fb_deref(buf, pos):
    return pos + int.from_bytes(buf[pos:pos + 4], "little")


HEADER_TYPES = {0: "NONE", 1: "Schema", 2: "DictionaryBatch", 3: "RecordBatch"}


def read_flight(datas):
    out = {"messages": [], "rows": 0, "first_column": [], "affected_rows": None}
    for d in datas:
        buf = d.data_header
        message = fb_deref(buf, 0)
        header_type = fb_int(buf, fb_field(buf, message, 1), 1)
        out["messages"].append(HEADER_TYPES.get(header_type, str(header_type)))
        if header_type == 0:
            meta = common_pb2.FlightMetadata()
            meta.ParseFromString(d.app_metadata)
            out["affected_rows"] = meta.affected_rows.value
        elif header_type == 3:
            batch = fb_deref(buf, fb_field(buf, message, 2))
            length = fb_int(buf, fb_field(buf, batch, 0), 8)
            out["rows"] += length
            # buffers: a vector of struct Buffer {offset: int64, length: int64}; column 0 has validity then data.
            buffers = fb_deref(buf, fb_field(buf, batch, 2))
            data_offset = int.from_bytes(buf[buffers + 4 + 16:buffers + 4 + 24], "little")
            for k in range(length):
                at = data_offset + 8 * k
                out["first_column"].append(int.from_bytes(d.data_body[at:at + 8], "little", signed=True))
    return out


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
elif command == "flight-query":
    from arrow.flight.protocol import Flight_pb2, Flight_pb2_grpc  # noqa: E402

    ticket = database_pb2.GreptimeRequest(header=header(), query=database_pb2.QueryRequest(sql=opts["sql"]))
    flight = Flight_pb2_grpc.FlightServiceStub(channel)
    try:
        datas = list(flight.DoGet(Flight_pb2.Ticket(ticket=ticket.SerializeToString()), timeout=30))
    except grpc.RpcError as err:
        print(json.dumps(failure(err)))
        sys.exit(0)
    print(json.dumps(read_flight(datas)))
else:
    sys.exit("unknown command: " + command)
