import { hooks, type Hook } from './resource.js';
import { projects } from '../projects/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseChoiceList, plural } from '../../parse.js';
import { ApiError, ExitCode } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { redactUrl } from '../../http/redact.js';
import { hookEvents, isSuccess, parseSince } from './events.js';
import { hookStatus } from './shared.js';

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

/** What --fix can repair: TLS verification turned on; a disabled hook re-enabled by a successful test delivery. */
const FIXES = ['ssl-on', 'reenable'] as const;
type Fix = (typeof FIXES)[number];

interface Finding {
  hook_id: number;
  url: string;
  finding: string;
  /** What --fix did about it: fixed, or why not; null when not asked to. */
  fixed: string | null;
  /** The fix that repairs this kind of finding. */
  fix?: Fix;
}

/** What is wrong with a hook, as far as its record tells: disabled, TLS not verified, plain http. */
function recordFindings(hook: Hook): Array<Pick<Finding, 'finding' | 'fix'>> {
  const findings: Array<Pick<Finding, 'finding' | 'fix'>> = [];
  if (hook.alert_status !== 'executable') findings.push({ finding: hookStatus(hook), fix: 'reenable' });
  if (hook.enable_ssl_verification === false) findings.push({ finding: 'TLS certificate verification is off', fix: 'ssl-on' });
  try {
    const url = new URL(hook.url.replace(/\{[^{}]*\}/g, 'x'));
    if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) findings.push({ finding: `deliveries to ${url.hostname} are not encrypted (http)` });
  } catch {
    findings.push({ finding: 'the URL is not valid' });
  }
  return findings;
}

/** The webhook URLs a desired-state file declares for a project (read once per run, however many projects). */
const declaredUrls = new Map<string, Promise<(path: string) => Set<string>>>();
function desiredHooks(ctx: Context, file: string): Promise<(path: string) => Set<string>> {
  let found = declaredUrls.get(file);
  if (!found) {
    found = (async () => {
      const [{ parseDesiredState }, { effectiveSections }, { readLocalFile }] = await Promise.all([import('../../desired/file.js'), import('../../desired/scopes.js'), import('../../files.js')]);
      const state = await parseDesiredState(file, readLocalFile(file, 'utf8'));
      return (path: string) => new Set(((effectiveSections(state.projects, path).hooks as Array<{ url: string }> | null | undefined) ?? []).map((hook) => hook.url));
    })();
    declaredUrls.set(file, found);
  }
  return found;
}

/** Repairs one finding; returns what happened, in words. */
async function repair(ctx: Context, project: string, hook: Hook, fix: Fix): Promise<string> {
  const route = { project, hook_id: hook.id };
  try {
    if (fix === 'ssl-on') {
      await ctx.api.call(hooks.routes.update, { ...route, url: hook.url, enable_ssl_verification: true });
      return 'fixed';
    }
    // A successful test delivery is what re-enables a hook the service disabled.
    await ctx.api.call(hooks.routes.test, { ...route, trigger: 'push_events' });
    const after = await ctx.api.call<Hook>(hooks.routes.get, route);
    return after.alert_status === 'executable' ? 'fixed' : `still ${hookStatus(after)}`;
  } catch (error) {
    if (error instanceof ApiError && error.status !== 401) return `not fixed: ${error.message} (${error.status})`;
    throw error;
  }
}

export default defineCommand<{ project?: string; since: string; desired?: string; fix?: string[] }>({
  effect: 'read',
  description:
    'Checks the webhooks of a project: disabled or paused after failures, failed deliveries since --since (default 24h), TLS ' +
    'verification off, plain http to another host, two hooks with the same URL, and with --desired FILE hooks the ' +
    'desired-state file does not declare. One row per finding; exit 9 when any is left, so cron and monitoring can alert. ' +
    '--fix ssl-on turns TLS verification on, --fix reenable sends a test delivery (a successful one re-enables a disabled ' +
    'hook); both are confirmed first (--yes without a terminal). With --group G --recursive it checks every project, ' +
    'with one confirmation for all. Needs the Maintainer role.',
  exits: { 9: 'a webhook has a finding that --fix did not repair' },
  examples: [
    'forgectl hooks audit --project acme/api',
    'forgectl hooks audit --group acme --recursive --since 7d --concurrency 8 -o json',
    'forgectl hooks audit --group acme --recursive --desired desired.yaml',
    'forgectl hooks audit --group acme --recursive --fix ssl-on,reenable --yes',
  ],
  options: [
    projectOption,
    { flags: '--since <when>', description: 'count failed deliveries since (a duration such as 24h, or a date-time)', default: '24h' },
    { flags: '--desired <file>', description: 'also report hooks this desired-state file does not declare for the project', localFile: true },
    {
      flags: '--fix <list>',
      description: `repair what can be repaired: ${FIXES.join(', ')} (comma-separated)`,
      mutates: true,
      parse: parseChoiceList('--fix', FIXES),
    },
  ],
  columns: ['hook_id', 'url', 'finding', 'fixed'],
  async run(opts, ctx) {
    parseSince(opts.since, ctx.now());
    let project = ctx.project(opts.project);
    const declared = opts.desired ? await desiredHooks(ctx, opts.desired) : undefined;
    if (declared && /^\d+$/.test(project)) project = (await ctx.api.call<{ path_with_namespace: string }>(projects.routes.get, { project })).path_with_namespace;
    const wanted = declared?.(project);
    const fixes = new Set((opts.fix ?? []) as Fix[]);

    const found: Array<Finding & { hook: Hook }> = [];
    const seen = new Map<string, number>();
    for await (const hook of ctx.api.list<Hook>(hooks.routes.list, { project }, { all: true })) {
      const findings = recordFindings(hook);
      const twin = seen.get(hook.url);
      if (twin !== undefined) findings.push({ finding: `the same URL as webhook ${twin}` });
      else seen.set(hook.url, hook.id);
      if (wanted && !wanted.has(hook.url)) findings.push({ finding: `not declared in ${opts.desired}` });
      let failed = 0;
      let total = 0;
      for await (const event of hookEvents(ctx, { project, hook_id: hook.id }, { since: opts.since }, { all: true })) {
        total++;
        if (!isSuccess(event)) failed++;
      }
      if (failed) findings.push({ finding: `${failed} of ${total} deliveries since ${opts.since} failed` });
      found.push(...findings.map((finding) => ({ hook_id: hook.id, url: hook.url, fixed: null, hook, ...finding })));
    }

    const repairable = found.filter((finding) => finding.fix && fixes.has(finding.fix));
    if (repairable.length) {
      const words = [...new Set(repairable.map((f) => (f.fix === 'ssl-on' ? 'turn TLS verification on for' : 're-enable')))].join(' and ');
      await ctx.confirm(`${words[0].toUpperCase()}${words.slice(1)} ${plural(repairable.length, 'webhook')} of project ${project}?`);
      for (const finding of repairable) finding.fixed = await repair(ctx, project, finding.hook, finding.fix!);
    }
    const rows = found.map(({ hook_id, url, finding, fixed }) => ({ hook_id, url: redactUrl(url), finding, fixed }));
    const left = rows.filter((row) => row.fixed !== 'fixed');
    if (!left.length) {
      ctx.io.note(rows.length ? `fixed ${plural(rows.length, 'finding')} in the webhooks of ${project}` : `the webhooks of ${project} look healthy`);
      return rows;
    }
    return new ResultWithExit(rows, ExitCode.attention, `${plural(left.length, 'finding')} in the webhooks of ${project}${rows.length > left.length ? ` (${rows.length - left.length} fixed)` : ''}`);
  },
});
