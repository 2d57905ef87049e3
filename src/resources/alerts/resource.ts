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
