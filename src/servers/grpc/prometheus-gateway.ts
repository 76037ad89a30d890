/**
 * `greptime.v1.PrometheusGateway` (reference api.md §6, GreptimeDB's
 * `servers/src/grpc/prom_query_gateway.rs`): `Handle(PromqlRequest)` runs an instant or range
 * PromQL query and answers `PromqlResponse{header, body}` whose body is the JSON the Prometheus
 * HTTP API answers for it — the success envelope, or the error envelope for a query that fails (the
 * call itself succeeds, as in GreptimeDB). Authentication (RequestHeader.authorization or the
 * `authorization` metadata) and a request naming no query are gRPC errors. The database is the
 * header's (`dbname`, else `schema`); one that does not exist answers empty data. The call's
 * deadline or cancellation stops the query.
 */
import * as grpc from '@grpc/grpc-js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import type { AuthHandler, PromqlHandler, SqlContext } from '../handlers.js';
import { apiErrorOf, checkRange, EMPTY_SOURCE, errorJson, invalidParam, isServerFault, parsePromDuration, parsePromTime, parsedParam, resultJson, runPromQuery, successJson, type PromQuery } from '../promql-api.js';
import { callSignal } from './call-signal.js';
import { toGrpcError } from './grpc-error.js';
import { databaseOf, userOf, type RequestHeader } from './request-context.js';

/** `greptime.v1.PromqlRequest` as decoded. */
interface PromqlRequest {
  readonly header?: RequestHeader | null;
  readonly promql?: 'instant_query' | 'range_query';
  readonly instant_query?: { query?: string; time?: string; lookback?: string } | null;
  readonly range_query?: { query?: string; start?: string; end?: string; step?: string; lookback?: string } | null;
}

export interface PrometheusGatewayHandlers {
  readonly promql: PromqlHandler;
  readonly auth?: AuthHandler;
}

/** The query a request asks for, with Prometheus's parameter checks (failures: bad_data). */
function queryOf(req: PromqlRequest): PromQuery {
  const lookback = (text: string | undefined) => {
    if (text === undefined || text === '') return {};
    const ms = parsedParam('lookback', text, parsePromDuration);
    return ms > 0 ? { lookbackMs: ms } : {};
  };
  if (req.promql === 'instant_query' && req.instant_query != null) {
    const q = req.instant_query;
    const time = q.time === undefined || q.time === '' ? Date.now() : parsedParam('time', q.time, parsePromTime);
    return { query: q.query ?? '', startMs: time, endMs: time, stepMs: 0, ...lookback(q.lookback) };
  }
  const q = req.range_query!;
  const startMs = parsedParam('start', q.start ?? '', parsePromTime);
  const endMs = parsedParam('end', q.end ?? '', parsePromTime);
  if (endMs < startMs) throw invalidParam('end', 'end timestamp must not be before start time');
  const stepMs = parsedParam('step', q.step ?? '', parsePromDuration);
  checkRange(startMs, endMs, stepMs);
  return { query: q.query ?? '', startMs, endMs, stepMs, ...lookback(q.lookback) };
}

export function prometheusGatewayService(handlers: PrometheusGatewayHandlers, log: Logger): grpc.UntypedServiceImplementation {
  return {
    Handle: (call: grpc.ServerUnaryCall<PromqlRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const { signal, dispose } = callSignal(call, 'PrometheusGateway');
      const run = async (): Promise<unknown> => {
        const req = call.request;
        const user = await userOf(req.header, call.metadata, handlers.auth);
        if ((req.promql !== 'instant_query' || req.instant_query == null) && (req.promql !== 'range_query' || req.range_query == null)) {
          throw new TsdbError(StatusCode.InvalidArguments, 'Invalid PromqlRequest: it names neither instant_query nor range_query');
        }
        let body: string;
        try {
          let database: string | undefined;
          try {
            database = databaseOf(req.header, call.metadata);
          } catch {
            // A catalog other than tsdb's: no such database.
          }
          const ctx: SqlContext = { database: database ?? '', timezone: 'UTC', user, protocol: 'grpc', signal, client: call.getPeer() };
          const promql: PromqlHandler = database === undefined ? { source: () => Promise.resolve(EMPTY_SOURCE) } : handlers.promql;
          body = successJson(resultJson(await runPromQuery(promql, ctx, queryOf(req))));
        } catch (err) {
          const e = apiErrorOf(err);
          if (isServerFault(e)) log.error({ err }, `PrometheusGateway: ${(err as Error).message}`);
          body = errorJson(e);
        }
        return { header: { status: { status_code: StatusCode.Success, err_msg: '' } }, body: Buffer.from(body) };
      };
      run()
        .then((res) => callback(null, res))
        .catch((err: unknown) => callback(toGrpcError(err, log, 'PrometheusGateway.Handle')))
        .finally(dispose);
    },
  };
}
