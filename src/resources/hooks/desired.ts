import { bodyOf, collectionSection } from '../../desired/sections/generic.js';
import type { FieldSpec } from '../../desired/model.js';
import { pick, refuse, SECRET_REF, specOf } from '../../desired/section.js';
import { maskUrlCredentials } from '../pull-mirror/values.js';
import { HOOK_EVENT_FLAGS, HOOK_EVENTS, hooks } from './resource.js';

/** A project's webhooks in a desired-state file (`hooks`). */

const EVENT_NAMES = HOOK_EVENT_FLAGS.map((flag) => HOOK_EVENTS[flag].name);

/** A token in a URL's query (`?token=…`, `&private_token=…`): its name and value; `{name}` names a URL variable instead. */
const QUERY_TOKEN = /([?&](?:private_token|job_token|access_token|token|api_key|secret)=)([^&#]*)/gi;
const isPlaceholder = (value: string): boolean => /^(\{|%7B)[^{}]*(\}|%7D)$/i.test(value);

/** Whether a URL carries a user, password or query token itself (`https://{user}:{password}@…`, `?token={token}` name URL variables instead). */
const credentialsIn = (url: string): boolean => {
  const userinfo = /^[a-z][\w+.-]*:\/\/([^/?#]*)@/i.exec(url)?.[1];
  if (userinfo !== undefined && /[^:]/.test(userinfo.replace(/\{[^{}]*\}/g, ''))) return true;
  return [...url.matchAll(QUERY_TOKEN)].some(([, , value]) => value !== '' && !isPlaceholder(value));
};
/** A hook's URL as plans show and export saves it: a user, password or query token in it masked. */
const shownHookUrl = (url: unknown): unknown =>
  typeof url === 'string' && credentialsIn(url) ? maskUrlCredentials(url).replace(QUERY_TOKEN, (whole, name: string, value: string) => (value === '' || isPlaceholder(value) ? whole : `${name}*****`)) : url;
const secretMap: FieldSpec = { schema: { type: 'object', additionalProperties: SECRET_REF }, secret: true };
const sortedKeys = (value: unknown): string[] => Object.keys((value as Record<string, unknown>) ?? {}).sort();

export const hooksSection = collectionSection(hooks, {
  key: 'hooks',
  help: 'Webhooks, paired by URL (a new URL is a new hook). events lists what is delivered; token, url_variables and custom_headers values are write-only secret references, sent when the hook is created and when their names change. Hooks forgectl creates carry [forgectl] in their description.',
  fields: {
    url: specOf(hooks.fields.url),
    name: specOf(hooks.fields.name),
    description: specOf(hooks.fields.description, { nullable: true }),
    events: { schema: { type: 'array', items: { enum: EVENT_NAMES }, uniqueItems: true }, help: 'the events delivered; the others are off' },
    push_events_branch_filter: specOf(hooks.fields.push_events_branch_filter, { nullable: true }),
    branch_filter_strategy: specOf(hooks.fields.branch_filter_strategy),
    enable_ssl_verification: specOf(hooks.fields.enable_ssl_verification),
    custom_webhook_template: specOf(hooks.fields.custom_webhook_template, { nullable: true }),
    token: specOf(hooks.fields.token),
    url_variables: { ...secretMap, help: 'values of the {name} parts of the URL, by name' },
    custom_headers: { ...secretMap, help: 'extra request headers, by name' },
  },
  values(record) {
    const keys = (list: unknown) => ((list as Array<{ key: string }> | undefined) ?? []).map((v) => v.key).sort();
    return {
      ...pick(record, hooksSection.fields),
      url: shownHookUrl(record.url),
      events: HOOK_EVENT_FLAGS.filter((flag) => record[flag] === true).map((flag) => HOOK_EVENTS[flag].name),
      url_variables: keys(record.url_variables),
      custom_headers: keys(record.custom_headers),
    };
  },
  async body(io, desired, names) {
    const body = await bodyOf(io, hooksSection, desired, names.filter((n) => n !== 'events'));
    if (names.includes('events')) for (const flag of HOOK_EVENT_FLAGS) body[flag] = (desired.events as string[]).includes(HOOK_EVENTS[flag].name);
    // The service still documents url as required on update.
    body.url = desired.url;
    return body;
  },
  marker: 'description',
  required: ['url'],
  overrides: {
    compareAs: { url_variables: sortedKeys, custom_headers: sortedKeys },
    check(values) {
      if (typeof values.url === 'string' && credentialsIn(values.url)) {
        refuse('url', 'holds credentials, which a desired-state file must not', 'write each as a {name} in the URL (https://{user}:{password}@host/…, …?token={token}) and give their values in url_variables as secret references ({env: VARIABLE}, {file: PATH})');
      }
      if (Array.isArray(values.events)) values.events = EVENT_NAMES.filter((name) => (values.events as string[]).includes(name));
      const template = typeof values.url === 'string' ? [...values.url.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]) : [];
      const missing = template.filter((name) => !(name in ((values.url_variables as Record<string, unknown>) ?? {})));
      if (missing.length) refuse('url', `names ${missing.map((m) => `{${m}}`).join(', ')} but url_variables does not give ${missing.length > 1 ? 'them' : 'it'}`);
      return values;
    },
  },
});
