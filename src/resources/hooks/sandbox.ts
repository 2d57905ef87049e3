import { HOOK_EVENT_FLAGS, hookEvents, hooks as resource, type HookEventFlag } from './resource.js';
import { projectFor, Role } from '../../sandbox/auth.js';
import { crudModule, type Crud } from '../../sandbox/crud.js';
import type { Db } from '../../sandbox/db.js';
import { created, errors, HttpError, noContent, required, type SandboxRequest } from '../../sandbox/http.js';
import { hookLogs, issues, mergeRequests, notesTable, repositories, users, type Commit, type Project, type StoredHook, type User } from '../../sandbox/model.js';
import { paginate } from '../../sandbox/pagination.js';
import { found, presentRecord } from '../../sandbox/records.js';
import { findCommit, parentsOf, ZERO_SHA } from '../../sandbox/git/repository.js';
import { issuePayload, mergeRequestPayload, notePayload, pushPayload } from '../../sandbox/webhook-payloads.js';
import { alertStatus, EVENT_HISTORY_MS, executeHook, fireProjectHooks, type HookEnv } from '../../sandbox/webhooks.js';
import { pipelineSample } from '../../sandbox/pipelines.js';

/**
 * Project webhooks (document 2; api-facts §1.14): CRUD from the declaration, plus test deliveries, the event history,
 * resending an event, and write-only URL variables and custom headers. Deliveries themselves are in ../webhooks.ts.
 */

const KEY = /^[A-Za-z0-9_-]+$/;
const RATE_LIMIT = 5;
const RATE_WINDOW_MS = 60_000;

/** Requests per limited action and scope in the last minute, per sandbox state. */
const recentRequests = new WeakMap<Db, Map<string, number[]>>();

/** The service's application rate limits (webhook tests and resends): 5 a minute, 429 with no Retry-After. */
function checkRateLimit(req: SandboxRequest, scope: string): void {
  let counters = recentRequests.get(req.db);
  if (!counters) recentRequests.set(req.db, (counters = new Map()));
  const now = req.now().getTime();
  const recent = (counters.get(scope) ?? []).filter((at) => at > now - RATE_WINDOW_MS);
  if (recent.length >= RATE_LIMIT) throw new HttpError(429, { message: { error: 'This endpoint has been requested too many times. Try again later.' } });
  recent.push(now);
  counters.set(scope, recent);
}

function pairs(value: unknown, name: string): StoredHook['url_variables'] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw errors.invalid(name);
  return value.map((item: unknown) => {
    const { key, value: v } = (item ?? {}) as { key?: unknown; value?: unknown };
    if (typeof key !== 'string' || !key || v === undefined || v === null) throw errors.invalid(name);
    return { key, value: String(v) };
  });
}

/** Keys named in the URL template: `{key}`. */
const templateKeys = (url: string): string[] => [...url.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]);

export const hooksModule: Crud<StoredHook> = crudModule<StoredHook>(resource, {
  notFound: 'Hook',
  /** A branch or tag moved: push (or tag push) hooks get the push payload; push branch filters apply. */
  onPush(event, env) {
    const payload = pushPayload(env, event);
    if (event.tag) fireProjectHooks(env, event.project, 'tag_push_events', payload);
    else fireProjectHooks(env, event.project, 'push_events', payload, { branch: event.branch });
  },
  validate(hook, req, previous) {
    hook.url_variables = pairs(req.input.url_variables, 'url_variables') ?? previous?.url_variables ?? [];
    hook.custom_headers = pairs(req.input.custom_headers, 'custom_headers') ?? previous?.custom_headers ?? [];
    const given = req.input.token;
    if (given !== undefined) hook.token = given === null || given === '' ? null : String(given);
    // Changing the URL resets the secret token unless a new one comes with it.
    else if (previous && previous.url !== hook.url) hook.token = null;
    else hook.token = previous?.token ?? null;
    const problems: Record<string, string[]> = {};
    let parsed: URL | undefined;
    try {
      parsed = new URL(hook.url.replace(/\{[^{}]*\}/g, 'x'));
    } catch {
      parsed = undefined;
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) problems.url = ['is blocked: Only allowed schemes are http, https'];
    const defined = new Set(hook.url_variables.map((v) => v.key));
    const missing = templateKeys(hook.url).filter((key) => !defined.has(key));
    if (missing.length) problems.url = [`Invalid URL template. Missing key${missing.length > 1 ? 's' : ''}: ${JSON.stringify(missing)}`];
    for (const list of ['url_variables', 'custom_headers'] as const) {
      if (hook[list].some((v) => !KEY.test(v.key))) problems[list] = ['must be a valid json schema'];
    }
    if (hook.branch_filter_strategy === 'regex' && hook.push_events_branch_filter) {
      try {
        new RegExp(hook.push_events_branch_filter);
      } catch {
        problems.push_events_branch_filter = ['not valid RE2 syntax'];
      }
    }
    if (Object.keys(problems).length) throw errors.validation(problems, 422);
  },
  computed(hook, req) {
    const status = alertStatus(hook, req.now());
    return {
      alert_status: status,
      disabled_until: status === 'executable' ? null : (hook.disabled_until ?? null),
      url_variables: hook.url_variables.map(({ key }) => ({ key })),
      custom_headers: hook.custom_headers.map(({ key }) => ({ key })),
    };
  },
  routes(api) {
    const hookOf = (req: SandboxRequest): { project: Project; hook: StoredHook } => {
      const project = projectFor(req, Role.maintainer);
      return { project, hook: hooksModule.find(req, project) };
    };
    api.route(resource.routes.test, async (req) => {
      const { project, hook } = hookOf(req);
      checkRateLimit(req, `test:${project.id}:${req.user!.id}`);
      const event = req.params.trigger as HookEventFlag;
      if (!HOOK_EVENT_FLAGS.includes(event)) throw errors.invalid('trigger');
      const payload = samplePayload(req, project, event, req.user!);
      const result = await executeHook(req, hook, event, payload, { force: true });
      if (result.status !== undefined && result.status >= 200 && result.status < 300) return created({ message: '201 Created' });
      throw errors.message(422, result.message || `${result.status ?? 'internal error'}`);
    });

    api.route(resource.routes.events, (req) => {
      const { hook } = hookOf(req);
      const status = req.query.status as string | undefined;
      const matches = statusFilter(status);
      const since = new Date(req.now().getTime() - EVENT_HISTORY_MS).toISOString();
      const list = hookLogs(req.db)
        .filter((log) => log.hook_id === hook.id && log.created_at >= since && matches(log.response_status))
        .sort((a, b) => (a.created_at === b.created_at ? b.id - a.id : a.created_at < b.created_at ? 1 : -1));
      return paginate(req, list, { present: (log) => presentRecord(hookEvents, log) });
    });

    api.route(resource.routes.resend, async (req) => {
      const { hook } = hookOf(req);
      checkRateLimit(req, `resend:${hook.id}:${req.user!.id}`);
      const log = found(hookLogs(req.db).find((l) => l.hook_id === hook.id && String(l.id) === req.params.hook_event_id));
      if (log.url !== hook.url) throw errors.message(422, 'The hook URL has changed, and this log entry cannot be retried');
      // The service resends the payload as it recorded it (email addresses redacted), with the same Idempotency-Key.
      const result = await executeHook(req, hook, log.event, log.request_data, { idempotencyKey: log.idempotency_key });
      if (result.status === undefined) throw errors.message(422, result.message);
      return created({ response_status: result.status });
    });

    const { routes } = resource;
    for (const [list, set, remove] of [['url_variables', routes.setUrlVariable, routes.deleteUrlVariable], ['custom_headers', routes.setCustomHeader, routes.deleteCustomHeader]] as const) {
      api.route(set, (req) => {
        const { hook } = hookOf(req);
        const key = req.params.key;
        if (!KEY.test(key)) throw errors.invalid('key');
        const value = String(required(req, 'value'));
        hook[list] = [...hook[list].filter((v) => v.key !== key), { key, value }];
        return noContent();
      });
      api.route(remove, (req) => {
        const { hook } = hookOf(req);
        const entry = found(hook[list].find((v) => v.key === req.params.key), list === 'url_variables' ? 'URL variable' : 'Custom header');
        hook[list] = hook[list].filter((v) => v !== entry);
        return noContent();
      });
    }
  },
});


/** The status query of the events endpoint: a status code, or successful / client_failure / server_failure. */
function statusFilter(status: string | undefined): (responseStatus: string) => boolean {
  if (status === undefined || status === '') return () => true;
  const code = (s: string): number => (/^\d+$/.test(s) ? Number(s) : NaN);
  if (/^\d{3}$/.test(status)) return (s) => s === status;
  const ranges: Record<string, [number, number]> = { successful: [200, 299], client_failure: [400, 499], server_failure: [500, 599] };
  const range = ranges[status];
  if (!range) throw errors.invalid('status');
  return (s) => code(s) >= range[0] && code(s) <= range[1];
}

/** Why a test of this trigger cannot run (the service answers 422 with this). */
const cannotTest = (message: string): HttpError => new HttpError(422, { message });

/**
 * The sample payload a test delivery of `event` sends, built from the project's own records as the service does;
 * 422 when the project has nothing to build it from.
 */
function samplePayload(env: HookEnv, project: Project, event: HookEventFlag, user: User): unknown {
  const repo = repositories(env.db).find((r) => r.project_id === project.id);
  switch (event) {
    case 'push_events': {
      const head = repo?.branches[project.default_branch];
      const tip = head ? findCommit(env.db, project.id, head) : undefined;
      if (!tip) throw cannotTest('Ensure the project has at least one commit.');
      // The service's sample: the newest three commits of the default branch.
      const chain: Commit[] = [];
      for (let c: Commit | undefined = tip; c && chain.length < 3; c = parentsOf(env.db, c, true)[0]) chain.unshift(c);
      const before = chain[0].parent_ids[0] ?? ZERO_SHA;
      return pushPayload(env, { project, ref: `refs/heads/${project.default_branch}`, before, after: tip.id, commits: chain, user });
    }
    case 'tag_push_events': {
      const [name, sha] = Object.entries(repo?.tags ?? {}).pop() ?? [];
      if (!name || !sha) throw cannotTest('Ensure the project has tags.');
      return pushPayload(env, { project, ref: `refs/tags/${name}`, before: ZERO_SHA, after: sha, commits: [], user });
    }
    case 'note_events':
    case 'confidential_note_events': {
      const note = notesTable(env.db).find((n) => n.project_id === project.id && !n.system && n.internal === (event === 'confidential_note_events'));
      if (!note) throw cannotTest('Ensure the project has notes.');
      return notePayload(env, project, note, users(env.db).find((u) => u.id === note.author_id) ?? user);
    }
    case 'issues_events':
    case 'confidential_issues_events': {
      const issue = issues(env.db).find((i) => i.project_id === project.id);
      if (!issue) throw cannotTest('Ensure the project has issues.');
      return issuePayload(env, project, issue, 'open', user);
    }
    case 'merge_requests_events': {
      const mr = mergeRequests(env.db).find((m) => m.project_id === project.id);
      if (!mr) throw cannotTest('Ensure the project has merge requests.');
      return mergeRequestPayload(env, project, mr, 'open', user);
    }
    case 'job_events':
    case 'pipeline_events': {
      const sample = pipelineSample(env, project, event);
      if (!sample) throw cannotTest(event === 'job_events' ? 'Ensure the project has CI jobs.' : 'Ensure the project has CI pipelines.');
      return sample;
    }
    case 'wiki_page_events':
      throw cannotTest('Ensure the wiki is enabled and has pages.');
    case 'releases_events':
      throw cannotTest('Ensure the project has releases.');
    case 'deployment_events':
      throw cannotTest('Ensure the project has deployments.');
    default:
      throw cannotTest('Testing not available for this hook');
  }
}
