import { projectFor, requireTier, Role } from '../../sandbox/auth.js';
import { created, errors, ok, type SandboxRequest } from '../../sandbox/http.js';
import type { ApprovalSettings } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { coerce, presentRecord, requireOneOf, type Values } from '../../sandbox/records.js';
import { approvalSettings } from '../../sandbox/review.js';
import { approvalSettings as declared } from './resource.js';

/**
 * The approval configuration of a project (spec 1, api-facts §1.2), served from its declaration: read by anyone who
 * sees the project (on every tier), changed by Maintainers on Premium with POST, which answers 201. The settings are
 * the declared fields but the lists of approvers; require_password_to_approve and require_reauthentication_to_approve
 * are two names of one setting.
 */

/** The settings a POST takes, in declared order: every field but the lists of approvers. */
const INPUTS = Object.entries(declared.fields).filter(([, field]) => field.kind.type !== 'object');

const shown = (settings: ApprovalSettings): Values =>
  presentRecord(declared, settings, { approvers: [], approver_groups: [], require_reauthentication_to_approve: settings.require_password_to_approve });

/** The settings a request gives (the later of the two names of one setting wins), checked as the service checks them. */
function changesOf(req: SandboxRequest, settings: ApprovalSettings): Values {
  requireOneOf(req, INPUTS.map(([name]) => name));
  const changes: Values = {};
  for (const [name, field] of INPUTS) {
    const value = coerce(name, field, req.input[name]);
    if (value !== undefined) changes[name === 'require_reauthentication_to_approve' ? 'require_password_to_approve' : name] = value;
  }
  const reset = changes.reset_approvals_on_push ?? settings.reset_approvals_on_push;
  if (changes.selective_code_owner_removals && reset) {
    throw errors.validation({ base: ['selective_code_owner_removals can only be enabled when reset_approvals_on_push is disabled'] });
  }
  if (changes.approvals_before_merge !== undefined && (changes.approvals_before_merge as number) < 0) throw errors.validation({ approvals_before_merge: ['must be greater than or equal to 0'] });
  return changes;
}

export const approvalSettingsModule: SandboxModule = {
  routes(api) {
    api.route(declared.routes.get, (req) => ok(shown(approvalSettings(req.db, projectFor(req).id))));
    api.route(declared.routes.update, (req) => {
      const project = projectFor(req, Role.maintainer);
      requireTier(req, 'premium');
      const settings = approvalSettings(req.db, project.id);
      Object.assign(settings, changesOf(req, settings));
      return created(shown(settings));
    });
  },
};
