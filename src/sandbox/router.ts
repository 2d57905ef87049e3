import type { ScopeNeed } from './auth.js';
import type { SandboxRequest, SandboxResponse } from './http.js';

export type Handler = (req: SandboxRequest) => SandboxResponse | Promise<SandboxResponse>;

export interface RouteOptions {
  /** 'required' (default), 'optional' (public reads), or 'none' (the handler checks, e.g. alert intake keys). */
  auth?: 'required' | 'optional' | 'none';
  /** Token scope the route needs; default read for GET/HEAD, write otherwise. */
  scope?: ScopeNeed;
}

interface Route {
  method: string;
  segments: Array<RegExp | 'splat'>;
  /** How specific each segment is: a literal 3, a parameter with text around it (`archive.:format`) 2, a parameter 1, a splat 0. */
  rank: number[];
  names: string[];
  handler: Handler;
  options: RouteOptions;
}

/**
 * Routes by method and path pattern, matched on the raw (still encoded) path so that `acme%2Fapi` stays one
 * segment: `/projects/:project/badges/:badge_id`, `/repository/archive.:format`, `/jobs/:job_id/artifacts/*artifact_path`.
 * The most specific route that matches answers, segment by segment from the left (`/badges/render` before
 * `/badges/:badge_id`), whatever order modules add them in; of equally specific ones, the first added.
 */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler, options: RouteOptions = {}): void {
    const names: string[] = [];
    const parts = pattern.split('/').filter(Boolean);
    const rank = parts.map((segment) => (segment.startsWith('*') ? 0 : !segment.includes(':') ? 3 : /^:[a-z_]+$/i.test(segment) ? 1 : 2));
    const segments = parts.map((segment): RegExp | 'splat' => {
      if (segment.startsWith('*')) {
        names.push(segment.slice(1));
        return 'splat';
      }
      const source = segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:([a-z_]+)/gi, (_, name: string) => {
        names.push(name);
        return '([^/]+?)';
      });
      return new RegExp(`^${source}$`);
    });
    const route = { method: method.toUpperCase(), segments, rank, names, handler, options };
    const before = this.routes.findIndex((other) => moreSpecific(route.rank, other.rank));
    this.routes.splice(before === -1 ? this.routes.length : before, 0, route);
  }

  /**
   * A declared route (src/resources/<resource>/resource.ts), 'GET /projects/{project}/repository/tree', as a sandbox route with
   * the declaration's parameter names (`req.params.project`).
   */
  route(route: string, handler: Handler, options?: RouteOptions): void {
    this.add(...routePattern(route), handler, options);
  }

  /**
   * The route for a request. A path served under other methods only is no route either: the service's catch-all
   * route answers every method it does not implement with 404 `{"error":"404 Not Found"}`, not 405.
   */
  match(method: string, rawPath: string): (Route & { params: Record<string, string> }) | undefined {
    const parts = rawPath.split('/').filter(Boolean);
    const wanted = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
    for (const route of this.routes) {
      if (!wanted.includes(route.method)) continue;
      const params = matchSegments(route, parts);
      if (params) return { ...route, params };
    }
    return undefined;
  }
}

/** `'GET /projects/{project}/badges/{badge_id}'` → ['GET', '/projects/:project/badges/:badge_id']: the declaration's own names. */
export function routePattern(route: string): [string, string] {
  const [method, path] = route.split(' ');
  return [method, path.replace(/\{\*([a-z_]+)\}/g, '*$1').replace(/\{([a-z_]+)\}/g, ':$1')];
}

/** Whether a route of rank `a` is more specific than one of rank `b`: the first segment that differs decides. */
function moreSpecific(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i] ?? -1, b[i] ?? -1];
    if (x !== y) return x > y;
  }
  return false;
}

function matchSegments(route: Route, parts: string[]): Record<string, string> | undefined {
  const values: string[] = [];
  let index = 0;
  for (const segment of route.segments) {
    if (segment === 'splat') {
      if (index >= parts.length) return undefined;
      values.push(parts.slice(index).map(safeDecode).join('/'));
      index = parts.length;
      break;
    }
    const part = parts[index++];
    if (part === undefined) return undefined;
    const match = segment.exec(part);
    if (!match) return undefined;
    values.push(...match.slice(1).map(safeDecode));
  }
  if (index !== parts.length) return undefined;
  return Object.fromEntries(route.names.map((name, i) => [name, values[i]]));
}

/** A percent-encoded text decoded, or as it is when it is no valid encoding (`%zz`). */
export function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
