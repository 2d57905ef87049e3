/** Deterministic fault injection for tests, driven through /-/sandbox/faults. */
export interface Fault {
  id: number;
  /** Only requests with this method (any when absent). */
  method?: string;
  /** A regular expression tested against the path below /api/v4 (raw and decoded) or the full path for WEB routes. */
  path?: string;
  /** Answer with this status instead of processing the request. */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Adds Retry-After (seconds) to the injected answer. */
  retry_after?: number;
  /** Delay before processing the request. */
  latency_ms?: number;
  /** Delay after the request was processed, before its answer is sent (the state has already changed). */
  answer_latency_ms?: number;
  /**
   * Close the connection: 'before' processing, 'after' the request was processed (the answer is lost), or during
   * the answer's 'body' (all of it but the last byte is sent).
   */
  drop?: 'before' | 'after' | 'body';
  /** How many matching requests this fault applies to (default 1). */
  times?: number;
}

export interface LoggedRequest {
  method: string;
  path: string;
  status: number | 'dropped';
  at: string;
}

export class Faults {
  private faults: Fault[] = [];
  private sequence = 0;
  readonly log: LoggedRequest[] = [];

  add(fault: Omit<Fault, 'id'>): Fault {
    const added = { times: 1, ...fault, id: ++this.sequence };
    this.faults.push(added);
    return added;
  }

  list(): Fault[] {
    return [...this.faults];
  }

  clear(): void {
    this.faults = [];
  }

  /** The first fault matching the request, consumed once. */
  take(method: string, rawPath: string): Fault | undefined {
    let decoded = rawPath;
    try {
      decoded = decodeURIComponent(rawPath);
    } catch {
      // keep raw
    }
    const fault = this.faults.find(
      (f) => (!f.method || f.method.toUpperCase() === method) && (!f.path || new RegExp(f.path).test(rawPath) || new RegExp(f.path).test(decoded)),
    );
    if (!fault) return undefined;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }
}
