export { deliverySpans } from './deliveries.ts';
export { traceRequests } from './http.ts';
export { statementSpans } from './sql.ts';
export { startTracing, tracesWanted, type Tracing } from './start.ts';
