import { bodyOf, singletonSection } from '../../desired/sections/generic.js';
import { refuse, specsOf } from '../../desired/section.js';
import { approvalSettings } from './resource.js';

/** The approval configuration in a desired-state file (a project's `approvals`). */

export const approvalsSection = singletonSection(approvalSettings, {
  key: 'approvals',
  help: 'The approval configuration (Premium). Only the settings given are compared.',
  fields: specsOf(approvalSettings),
  overrides: {
    check(values) {
      if (values.selective_code_owner_removals === true && values.reset_approvals_on_push === true) {
        refuse('selective_code_owner_removals', 'can only be true when reset_approvals_on_push is false');
      }
      return values;
    },
    async update(io, owner, _live, changed, desired) {
      const body = await bodyOf(io, approvalsSection, desired, changed);
      if ('require_reauthentication_to_approve' in body) body.require_password_to_approve = body.require_reauthentication_to_approve;
      // Both names of the one setting: older instances know only require_password_to_approve.
      await io.api.call(approvalSettings.routes.update, { project: owner.path, ...body });
    },
  },
});
