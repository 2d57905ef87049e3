import { describe, expect, it } from 'vitest';
import { placements } from '../../src/api/resource.js';
import { approvalRules } from '../../src/api/resources/approval-rules.js';
import { approvalSettings } from '../../src/api/resources/approval-settings.js';
import { auditEvents } from '../../src/api/resources/audit-events.js';
import { mergeRequestApprovals } from '../../src/api/resources/merge-request-approvals.js';
import type { SandboxModule } from '../../src/sandbox/module.js';
import { Router } from '../../src/sandbox/router.js';
import { approvals } from '../../src/sandbox/routes/approvals.js';
import { auditEvents as auditEventsModule } from '../../src/sandbox/routes/audit-events.js';
import { mergeRequestApprovalRules } from '../../src/sandbox/routes/merge-request-approval-rules.js';

/** The routes a module adds: those taken from a declaration (route()) and those typed as patterns. */
function routesOf(module: SandboxModule): { declared: string[]; typed: string[] } {
  const declared: string[] = [];
  const typed: string[] = [];
  const typedAs = (method: string) => (pattern: string) => void typed.push(`${method} ${pattern}`);
  const recorder = {
    route: (route: string) => void declared.push(route),
    add: (method: string, pattern: string) => typedAs(method)(pattern),
    get: typedAs('GET'),
    post: typedAs('POST'),
    put: typedAs('PUT'),
    delete: typedAs('DELETE'),
  };
  module.routes(recorder as unknown as Router, new Router());
  return { declared, typed };
}

const routesOfDeclaration = (def: Parameters<typeof placements>[0] | { routes: Record<string, string> }): string[] =>
  'parents' in def || 'id' in def ? placements(def as Parameters<typeof placements>[0]).flatMap((placement) => Object.values(placement.routes)) : Object.values(def.routes);

describe('the sandbox serves the review and audit routes from their declarations', () => {
  it.each([
    ['approvals', approvals, [...routesOfDeclaration(mergeRequestApprovals), ...routesOfDeclaration(approvalSettings), ...Object.values(approvalRules.parents.project.routes)].filter((route) => !route.endsWith('/approval_state'))],
    ['merge-request-approval-rules', mergeRequestApprovalRules, [mergeRequestApprovals.routes.state, ...Object.values(approvalRules.parents.mr.routes)]],
    ['audit-events', auditEventsModule, routesOfDeclaration(auditEvents)],
  ])('%s: every route is a declared one, none typed by hand', (_name, module, expected) => {
    const { declared, typed } = routesOf(module);
    expect(typed).toEqual([]);
    expect(declared.sort()).toEqual([...expected].sort());
  });
});
