import { isFullSha } from '../../git/objects.js';
import { projectFor, Role } from '../../sandbox/auth.js';
import { presentCommit } from '../../sandbox/git/present.js';
import { branchWriteOf, checkPath, commitToBranch } from '../../sandbox/git/write.js';
import { errors, ok, required } from '../../sandbox/http.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { submodules as declared } from './resource.js';

/** A submodule moved to another commit: one commit that changes its gitlink, answered with that commit. */
export const submodules: SandboxModule = {
  routes(api) {
    api.route(declared.routes.update, (req) => {
      const project = projectFor(req, Role.developer);
      const path = checkPath(req.params.submodule, 'submodule');
      const sha = String(required(req, 'commit_sha'));
      if (!isFullSha(sha)) throw errors.error(400, 'commit_sha is invalid');
      const params = branchWriteOf(req, `Update submodule ${path} with oid ${sha}`);
      const commit = commitToBranch(req, project, {
        ...params,
        change: (snapshot) => {
          const entry = snapshot.get(path);
          if (!entry || entry.mode !== '160000') throw errors.message(400, 'Invalid submodule path');
          if (entry.id === sha.toLowerCase()) throw errors.message(400, `The submodule ${path} is already at ${sha}`);
          snapshot.set(path, { mode: '160000', id: sha.toLowerCase() });
        },
      });
      return ok(presentCommit(commit, project, req.rootUrl, { single: true }));
    });
  },
};
