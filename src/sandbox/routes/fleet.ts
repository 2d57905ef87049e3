import { findGroup } from '../auth.js';
import { repositoryOf, seedCommit } from '../git/repository.js';
import type { SandboxModule } from '../module.js';
import { addGroup, addProject, fleetProjectPath } from '../seed.js';
import { protectDefaultBranch } from '../protection.js';
import { pushRuleTable, type PushRule } from '../model.js';

/**
 * `--fleet N`: N more projects in nested subgroups of acme (acme/team-NN/squad-N/svc-NNN, ten to a squad, five
 * squads to a team), each with a README on main and a push rule, for fleet operations and configuration as code at
 * scale (tests and bench/fleet).
 */
export const fleet: SandboxModule = {
  routes() {},
  // The fleet's projects come after the demo's protected branches (their ids).
  seedAfter: ['protected-branches'],
  seed(db, { fleet: count = 0, now }) {
    if (!count) return;
    const acme = findGroup(db, 'acme');
    const groupsByPath = new Map<string, number>();
    const groupFor = (path: string): number => {
      const known = groupsByPath.get(path);
      if (known) return known;
      const parts = path.split('/');
      const parent = parts.length === 2 ? acme.id : groupFor(parts.slice(0, -1).join('/'));
      const name = parts[parts.length - 1];
      const id = addGroup(db, { name, path: name, parent_id: parent }, now).id;
      groupsByPath.set(path, id);
      return id;
    };
    for (let n = 1; n <= count; n++) {
      const full = fleetProjectPath(n);
      const name = full.split('/').pop()!;
      const project = addProject(db, { name, path: name, namespace_id: groupFor(full.split('/').slice(0, -1).join('/')), description: `Service ${n} of the fleet` }, now);
      const commit = seedCommit(db, project.id, undefined, 'Initial commit', { 'README.md': `# ${full}\n` }, now);
      Object.assign(repositoryOf(db, project.id), { branches: { main: commit.id } });
      protectDefaultBranch(db, project);
      const rule: PushRule = {
        id: db.nextId('push_rules'), project_id: project.id, created_at: now.toISOString(), max_file_size: 100,
        commit_message_regex: null, commit_message_negative_regex: null, branch_name_regex: null, author_email_regex: null, file_name_regex: null,
        deny_delete_tag: true, member_check: false, prevent_secrets: true, commit_committer_check: false, commit_committer_name_check: false,
        reject_unsigned_commits: false, reject_non_dco_commits: false,
      };
      pushRuleTable(db).push(rule);
    }
  },
};
