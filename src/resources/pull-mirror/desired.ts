import { noEmptyRegex, singletonSection } from '../../desired/sections/generic.js';
import { pick, refuse, specsOf } from '../../desired/section.js';
import { pullMirror } from './resource.js';
import { withoutCredentials } from './values.js';

/** Pull mirroring in a desired-state file (a project's `pull_mirror`). */

const MIRROR_CREDENTIALS = ['auth_user', 'auth_password'];

export const pullMirrorSection = singletonSection(pullMirror, {
  key: 'pull_mirror',
  help: 'Pull mirroring (Premium). Credentials go in auth_user and auth_password (a secret reference), never in the URL. null: no mirroring.',
  fields: specsOf(pullMirror, [], { mirror_branch_regex: { nullable: true } }),
  upsert: true,
  removeBody: { enabled: false },
  // The service answers 400 "The project is not mirrored" when there is none.
  absent: (error) => error.status === 400 && /not mirrored/i.test(error.message),
  // A new URL may need its credentials again: they are sent with it.
  resend: (changed) => (changed.includes('url') ? MIRROR_CREDENTIALS : []),
  // Compared without the (masked) credentials the service shows in the URL.
  values: (record) => ({ ...pick(record, pullMirrorSection.fields), url: typeof record.url === 'string' ? withoutCredentials(record.url) : null }),
  overrides: {
    check(values) {
      if (typeof values.url === 'string' && withoutCredentials(values.url) !== values.url) {
        refuse('url', 'holds credentials, which a desired-state file must not', 'give auth_user, and auth_password as {env: VARIABLE}, {file: PATH} or {command: …}');
      }
      if (values.mirror_branch_regex && values.only_mirror_protected_branches === true) refuse('mirror_branch_regex', 'cannot be combined with only_mirror_protected_branches: true');
      return noEmptyRegex(['mirror_branch_regex'])(values);
    },
  },
});
