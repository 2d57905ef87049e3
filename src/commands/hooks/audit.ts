import { hooks, type Hook } from '../../api/resources/hooks.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { ExitCode } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { hookEvents, isSuccess, parseSince } from './events.js';
import { hookStatus } from './shared.js';

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

/** What is wrong with a hook, as far as its record tells: disabled, TLS not verified, plain http. */
function recordFindings(hook: Hook): string[] {
  const findings: string[] = [];
  if (hook.alert_status !== 'executable') findings.push(hookStatus(hook));
  if (hook.enable_ssl_verification === false) findings.push('TLS certificate verification is off');
  try {
    const url = new URL(hook.url.replace(/\{[^{}]*\}/g, 'x'));
    if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) findings.push(`deliveries to ${url.hostname} are not encrypted (http)`);
  } catch {
    findings.push('the URL is not valid');
  }
  return findings;
}

export default defineCommand<{ project?: string; since: string }>({
  description:
    'Checks the webhooks of a project: disabled or paused after failures, failed deliveries since --since (default 24h), TLS ' +
    'verification off, plain http to another host. One row per finding; exit 9 when there is any, so cron and monitoring can ' +
    'alert. With --group G --recursive it checks every project. Needs the Maintainer role.',
  examples: ['forgectl hooks audit --project acme/api', 'forgectl hooks audit --group acme --recursive --since 7d -o json'],
  options: [projectOption, { flags: '--since <when>', description: 'count failed deliveries since (a duration such as 24h, or a date-time)', default: '24h' }],
  columns: ['hook_id', 'url', 'finding'],
  async run(opts, ctx) {
    parseSince(opts.since, ctx.now());
    const project = ctx.project(opts.project);
    const rows: Array<{ hook_id: number; url: string; finding: string }> = [];
    for await (const hook of ctx.api.list<Hook>(hooks.routes.list!, { project }, { all: true })) {
      const findings = recordFindings(hook);
      let failed = 0;
      let total = 0;
      for await (const event of hookEvents(ctx, { project, hook_id: hook.id }, { since: opts.since }, { all: true })) {
        total++;
        if (!isSuccess(event)) failed++;
      }
      if (failed) findings.push(`${failed} of ${total} deliveries since ${opts.since} failed`);
      rows.push(...findings.map((finding) => ({ hook_id: hook.id, url: hook.url, finding })));
    }
    if (!rows.length) {
      ctx.io.note(`the webhooks of ${project} look healthy`);
      return rows;
    }
    return new ResultWithExit(rows, ExitCode.attention, `${rows.length} finding${rows.length === 1 ? '' : 's'} in the webhooks of ${project}`);
  },
});
