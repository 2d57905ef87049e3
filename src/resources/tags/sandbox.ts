import { createHash } from 'node:crypto';
import { projectFor, Role } from '../../sandbox/auth.js';
import { presentCommit } from '../../sandbox/git/present.js';
import { findCommit, repositoryOf } from '../../sandbox/git/repository.js';
import { created, errors, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { tagAnnotations, type Project } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { tagProtected } from '../../sandbox/protection.js';
import { presentDerived } from '../../sandbox/records.js';
import { readableProject, refTarget, refuseProtectedDeletion, searchedRefs, startCommit, validRefName } from '../../sandbox/repository-access.js';
import { tags as declared } from './resource.js';

/**
 * Tags of a repository (the refs of src/sandbox/git): list (with search, by name, version or date), get, create from
 * a ref, lightweight or annotated (with a message), delete. Names keep their dots and slashes: one encoded segment.
 */

/** A tag as the service presents it, from its ref and annotation: its declared fields, each computed. */
function tagOf(req: SandboxRequest, project: Project, name: string, sha: string): Record<string, unknown> {
  const commit = findCommit(req.db, project.id, sha)!;
  const note = tagAnnotations(req.db).find((a) => a.project_id === project.id && a.name === name);
  return presentDerived(declared, {
    commit: presentCommit(commit, project, req.rootUrl, { trailers: true }),
    release: null,
    name,
    target: note?.target ?? sha,
    message: note?.message ?? null,
    protected: tagProtected(req.db, project, name),
    created_at: note?.created_at ?? null,
  });
}

export const tagsModule: SandboxModule = {
  routes(api) {
    const t = declared.routes;
    const open = { auth: 'optional' as const };
    api.route(t.list, (req) => {
      const project = readableProject(req);
      const repository = repositoryOf(req.db, project.id);
      const order = String(req.query.order_by ?? 'updated');
      if (!['name', 'updated', 'version'].includes(order)) throw errors.invalid('order_by');
      const sort = String(req.query.sort ?? 'desc');
      if (!['asc', 'desc'].includes(sort)) throw errors.invalid('sort');
      const dated = (name: string) => findCommit(req.db, project.id, repository.tags[name])?.committed_date ?? '';
      const names = searchedRefs(Object.keys(repository.tags), req.query.search).sort((a, b) => {
        if (order === 'name') return a.localeCompare(b);
        if (order === 'version') return a.localeCompare(b, undefined, { numeric: true });
        return dated(a).localeCompare(dated(b)) || a.localeCompare(b);
      });
      if (sort === 'desc') names.reverse();
      return paginate(req, names, { present: (name) => tagOf(req, project, name, repository.tags[name]) });
    }, open);

    api.route(t.get, (req) => {
      const project = readableProject(req);
      return ok(tagOf(req, project, req.params.tag_name, refTarget(req, project, 'tag', req.params.tag_name)));
    }, open);

    api.route(t.create, (req) => {
      const project = projectFor(req, Role.developer);
      const name = String(required(req, 'tag_name'));
      const ref = String(required(req, 'ref'));
      if (!validRefName(name)) throw errors.message(400, 'Tag name invalid');
      const repository = repositoryOf(req.db, project.id);
      if (repository.tags[name]) throw errors.message(400, `Tag ${name} already exists`);
      const commit = startCommit(req, project, ref, `Target ${ref} is invalid`);
      repository.tags[name] = commit.id;
      const message = req.input.message === undefined || req.input.message === null ? '' : String(req.input.message).trim();
      if (message) {
        const target = createHash('sha1').update(`tag ${name}\nobject ${commit.id}\n\n${message}\n`).digest('hex');
        const table = tagAnnotations(req.db);
        table.splice(0, table.length, ...table.filter((a) => !(a.project_id === project.id && a.name === name)));
        table.push({ project_id: project.id, name, message, target, created_at: req.now().toISOString() });
      }
      return created(tagOf(req, project, name, commit.id));
    });

    api.route(t.delete, (req) => {
      const project = projectFor(req, Role.developer);
      const name = req.params.tag_name;
      refTarget(req, project, 'tag', name); // 404 when there is none
      refuseProtectedDeletion(req, project, 'tag', tagProtected(req.db, project, name));
      delete repositoryOf(req.db, project.id).tags[name];
      const table = tagAnnotations(req.db);
      const index = table.findIndex((a) => a.project_id === project.id && a.name === name);
      if (index >= 0) table.splice(index, 1);
      return noContent();
    });
  },
};
