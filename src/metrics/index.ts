export { Metrics, outcomeOf, type DeliveryOutcome, type MetricSources } from './registry.ts';
export {
  countUnavailable,
  metricsServer,
  METRICS_PATH,
  registerMetricsRoute,
  requestTimer,
  UNMATCHED,
} from './http.ts';
