import { auditAction, type AuditEvent } from './resource.js';

/** The columns people read: who, when, what, on what (`details` has no fixed schema: every key may be missing). */
export const row = (event: AuditEvent) => {
  const details = event.details ?? {};
  return {
    ...event,
    author: details.author_name ?? String(event.author_id),
    action: auditAction(details),
    target: [details.target_type, details.target_details].filter(Boolean).join(' '),
  };
};
