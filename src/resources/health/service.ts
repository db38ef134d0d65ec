import { iso, type Clock } from '../../model/time.ts';
import type { Store } from '../../store/store.ts';

/** Whether the service is up (liveness) and whether its store can serve requests now (readiness). */
export class HealthService {
  constructor(private readonly deps: { readonly clock: Clock; readonly store: Pick<Store, 'kind' | 'ping'> }) {}

  liveness(): { status: 'ok'; timestamp: string } {
    return { status: 'ok', timestamp: iso(this.deps.clock.now()) };
  }

  /** A store that cannot answer rejects with its StoreUnavailableError, which the error handler answers 503. */
  async readiness(): Promise<{ status: 'ready'; store: Store['kind'] }> {
    await this.deps.store.ping();
    return { status: 'ready', store: this.deps.store.kind };
  }
}
