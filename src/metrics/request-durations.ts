import { Histogram, type HistogramConfiguration } from 'prom-client';

type Label = 'method' | 'route' | 'status_class';

/** The status classes by the status code's first digit. */
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

/** One series of the histogram: a count per bucket (not yet cumulative, the last one for `+Inf`), their sum. */
export class DurationSeries {
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Readonly<Record<Label, string>>,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(seconds: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }

  /** The exposition's samples of this series, as prom-client's own histograms give them to the registry. */
  samples(name: string): { metricName: string; labels: Record<string, string | number>; value: number }[] {
    const out = [];
    let cumulative = 0;
    for (let i = 0; i <= this.bounds.length; i++) {
      cumulative += this.counts[i]!;
      const le = i < this.bounds.length ? this.bounds[i]! : '+Inf';
      out.push({ metricName: `${name}_bucket`, labels: { le, ...this.labels }, value: cumulative });
    }
    out.push({ metricName: `${name}_sum`, labels: { ...this.labels }, value: this.sum });
    out.push({ metricName: `${name}_count`, labels: { ...this.labels }, value: this.count });
    return out;
  }
}

/**
 * The request-duration histogram, observed once per answer. prom-client's own `observe` validates and hashes the
 * labels and finds the bucket in an object keyed by the bound (a number made a string) at every call, even on a
 * child from `labels()`: about 7,700 instructions per request, 4–5 % of a `GET /api/tasks/:id` (bench/README.md,
 * "Metrics on and off"). Here the caller keeps each series (`series`) and an observation is a bucket walk over a
 * typed array. It stays a prom-client `Histogram` to the registry, which formats it as any other at the scrape.
 */
export class RequestDurations extends Histogram<Label> {
  private readonly bounds: readonly number[];
  /** Each series by route template, then method, then status class (its index in `STATUS_CLASSES`). */
  // Set by `reset`, which prom-client's constructor calls before this class's fields would be initialized.
  declare private byRoute: Map<string, Map<string, (DurationSeries | undefined)[]>>;
  /** Every series in the order of their first answers: the order of the exposition, as prom-client's own. */
  declare private ordered: DurationSeries[];

  private readonly configuration: HistogramConfiguration<Label>;

  constructor(configuration: HistogramConfiguration<Label> & { buckets: number[] }) {
    super(configuration);
    this.configuration = configuration;
    this.reset();
    this.bounds = [...configuration.buckets].sort((a, b) => a - b);
  }

  /**
   * The series of an answer, made at its first use and kept (their number is bounded: routes × methods × classes).
   * Found by two lookups of strings V8 already holds (the route's template, the method) and an index: no key is
   * built per request.
   */
  series(method: string, route: string, status: number): DurationSeries {
    const cls = Math.floor(status / 100);
    const index = cls >= 0 && cls < STATUS_CLASSES.length ? cls : STATUS_CLASSES.length;
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map()));
    let byClass = byMethod.get(method);
    if (byClass === undefined) byMethod.set(method, (byClass = []));
    let series = byClass[index];
    if (series === undefined) {
      const labels = { method, route, status_class: STATUS_CLASSES[index] ?? 'other' };
      series = byClass[index] = new DurationSeries(this.bounds, labels);
      this.ordered.push(series);
    }
    return series;
  }

  override get(): ReturnType<Histogram<Label>['get']> {
    return Promise.resolve({
      name: this.configuration.name,
      help: this.configuration.help,
      type: 'histogram',
      aggregator: 'sum',
      values: this.ordered.flatMap((series) => series.samples(this.configuration.name)),
    } as unknown as Awaited<ReturnType<Histogram<Label>['get']>>);
  }

  /** What the registry reads (prom-client calls it in place of `get` when a metric has it). */
  getForPromString(): ReturnType<Histogram<Label>['get']> {
    return this.get();
  }

  override reset(): void {
    this.byRoute = new Map();
    this.ordered = [];
  }
}
