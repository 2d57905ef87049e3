import { hooks, type Hook } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';
import { redactRecord, redactUrl } from '../../http/redact.js';
import { enabledEvents, hookStatus } from './shared.js';

/** The plain verbs of webhooks; create, update and the delivery commands are their own modules. */
export default plainCommands(hooks, {
  list: {
    description:
      'EVENTS are the kinds delivered; STATUS is ok, "disabled until <time>" (from the 4th failure in a row a hook is paused for a ' +
      'minute, doubling up to a day) or "disabled" (40 failures in a row; a successful `hooks test` re-enables it).',
    examples: ['forgectl hooks list --project acme/api', 'forgectl hooks list --project acme/api -o json --fields id,url,status'],
    map: (hook: Hook) => redactRecord({ ...hook, events: enabledEvents(hook).join(','), status: hookStatus(hook) }),
  },
  get: {
    description: 'The secret token is never returned; custom headers and URL variables show their keys only.',
    examples: ['forgectl hooks get 1 --project acme/api', 'forgectl hooks get 1 --project acme/api --fields alert_status,disabled_until'],
    map: (hook: Hook) => redactRecord(hook),
  },
  delete: {
    examples: ['forgectl hooks delete 1 --project acme/api --yes'],
    inspect: (hook: Hook) => hook.name || redactUrl(hook.url),
  },
});
