import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** Alert severities of spec document 3, shared by `alerts send` and the sandbox's alert intake. */

export const GENERIC_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info', 'unknown'] as const;
export type Severity = (typeof GENERIC_SEVERITIES)[number];

/** Severity labels of metrics alerts ("Severity mapping"), lower case; the service reads any other as critical. */
export const SEVERITY_LABELS: Record<string, Exclude<Severity, 'unknown'>> = Object.fromEntries(
  Object.entries({
    critical: ['critical', 's1', 'p1', 'emergency', 'fatal'],
    high: ['high', 's2', 'p2', 'major', 'page'],
    medium: ['medium', 's3', 'p3', 'error', 'alert'],
    low: ['low', 's4', 'p4', 'warn', 'warning'],
    info: ['info', 's5', 'p5', 'debug', 'information', 'notice'],
  }).flatMap(([severity, labels]) => labels.map((label) => [label, severity as Exclude<Severity, 'unknown'>])),
);

/** The instance's limit on generic and metrics alert payloads. */
export const MAX_ALERT_PAYLOAD_BYTES = 1024 * 1024;

/** The top-level attributes a metrics-alerting webhook body (version 4) must have; the endpoint answers 422 without them. */
export const PROMETHEUS_KEYS = ['alerts', 'commonAnnotations', 'commonLabels', 'externalURL', 'groupKey', 'groupLabels', 'receiver', 'status', 'version'];

/**
 * The alerts a project's alert integrations receive. The intake routes are WEB routes of the instance, outside
 * /api/v4: `{project}` is the project's full path with its slashes as they are, and the integration's key, not a
 * token, signs the request. Each answers the alerts it created, grouped or resolved, as `{iid, title}`. Several HTTP
 * endpoints per project (`notifyEndpoint`, named by the integration's name and identifier) need Premium.
 */
export const alerts = defineResource({
  noun: 'alert',
  command: 'alerts',
  id: { param: 'alert_iid', field: 'iid' },
  parent: 'project',
  routes: {
    // The metrics endpoint first: its path also reads as the generic one of a project named …/prometheus.
    notifyPrometheus: 'POST /{project}/prometheus/alerts/notify.json',
    notifyEndpoint: 'POST /{project}/alerts/notify/{name}/{endpoint_identifier}.json',
    notify: 'POST /{project}/alerts/notify.json',
  },
  fields: {
    iid: f.int({ min: 1, readOnly: true }),
    title: f.string({ readOnly: true }),
  },
  columns: ['iid', 'title'],
  identity: ['iid'],
  // Sending takes the integration's key; configuring integrations needs Maintainer.
  roles: { read: 'developer', write: 'maintainer' },
});
