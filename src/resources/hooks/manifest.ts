import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = {
  hooks: 'Project webhooks: deliveries, their history, resending',
  'hooks url-var': 'URL variables of a webhook (write-only values)',
  'hooks header': 'Custom headers of a webhook (write-only values)',
};

export const entries: ManifestEntry[] = [
  ...verbEntries('hooks', () => import('./commands.js'), { list: 'List the webhooks of a project with their status', get: 'Show one webhook', delete: 'Remove a webhook' }),
  { path: 'hooks create', summary: 'Add a webhook (secrets from stdin, a file or the environment)', load: () => import('./create.js') },
  { path: 'hooks update', summary: 'Change a webhook', load: () => import('./update.js') },
  { path: 'hooks test', summary: 'Send a sample event now; a successful test re-enables a disabled hook', load: () => import('./test.js') },
  { path: 'hooks events', summary: 'Deliveries of the last 7 days', load: () => import('./events.js') },
  { path: 'hooks audit', summary: 'Check webhooks: disabled, failing, TLS off, plain http (exit 9 when any)', load: () => import('./audit.js') },
  { path: 'hooks resend', summary: 'Deliver recorded events again, paced to the service limit', load: () => import('./resend.js') },
  ...verbEntries('hooks url-var', () => import('./url-var.js'), { set: 'Set a URL variable', delete: 'Remove a URL variable' }),
  ...verbEntries('hooks header', () => import('./header.js'), { set: 'Set a custom header', delete: 'Remove a custom header' }),
];
